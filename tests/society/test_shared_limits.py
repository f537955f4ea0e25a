"""One rate limit and one budget across the processes of a run: four researcher worker
processes call a local chat-completions server that counts what arrives, and together
they stay within the scenario's requests per minute while keeping it nearly full; with a
calls budget, everything in flight across the four overshoots by at most one call."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from bus import EmbeddedServer
from society.logs import configure_logging

from ..chat_server import chat_server
from .conftest import payloads, records
from .test_distributed import run_external
from .workers import workers

pytestmark = [pytest.mark.nats]

KEY = "sk-shared-limits-test-0123456789"
RPM = 120


@pytest.fixture(autouse=True)
def _setup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIETY_TEST_KEY", KEY)  # the workers read it from the scenario
    configure_logging("console", "warning")


def scenario(url: str, tasks: int, *, rpm: int | None = None, calls: int | None = None) -> str:
    plan = {
        "success_criteria": ["every fact is found"],
        "tasks": [
            {
                "id": f"fact{i}",
                "role": "researcher",
                "description": f"Find fact number {i}.",
                "outputs": [f"fact{i}"],
            }
            for i in range(tasks)
        ],
    }
    limit = f"rate_limit: {{rpm: {rpm}}}" if rpm else ""
    budget = f"budgets: {{calls: {calls}}}" if calls else ""
    return f"""
name: shared_limits
goal: {{text: Find every fact.}}
models:
  default: {{provider: scripted}}
  remote:
    provider: openai
    config:
      model: local-model
      base_url: {url}
      api_key: ${{SOCIETY_TEST_KEY}}
      model_info: {{vision: false, function_calling: false, json_output: true, family: unknown, structured_output: false}}
    {limit}
# the limits are the point: the planner is asked for its plan of research tasks (the
# researcher is offered though it has nothing to read), with no goal check added
roles:
  planner: {{one_task_first: false, offer_researcher: true}}
  manager: {{goal_check: false}}
  researcher: {{model: remote, concurrency: 4, require_sources: false}}
{budget}
script:
  planner:
    - answer: {json.dumps(plan)}
"""


def answer(delay_s: float) -> Any:
    def respond(body: dict[str, Any]) -> str:
        time.sleep(delay_s)  # a model's latency: calls overlap across the processes
        prompt = json.dumps(body["messages"])
        number = re.search(r"Find fact number (\d+)", prompt)
        assert number is not None, prompt
        return json.dumps({"outputs": {f"fact{number[1]}": "found"}})

    return respond


RESEARCHERS = 4


def specs(url: str) -> list[tuple[str, str, str]]:
    return [("planner", "p", url)] + [("researcher", f"r{i}", url) for i in range(RESEARCHERS)]


@pytest.mark.timeout(420)
async def test_four_worker_processes_share_one_rate_limit(run_id: str, tmp_path: Path) -> None:
    # Demand far above the limit for more than a minute: 4 processes x 4 tasks at once,
    # 0.2 s a call, and more tasks than 1.2 minutes of the limit allow.
    with chat_server(answer(0.2)) as chat:
        async with (
            EmbeddedServer(tmp_path / "nats") as nats,
            workers(specs(nats.url), run_id=run_id, runs_dir=tmp_path / "w"),
        ):
            text = scenario(chat.url, tasks=int(RPM * 1.2) + 10, rpm=RPM)
            outcome = await asyncio.wait_for(run_external(text, nats.url, run_id, tmp_path), 360)

    # every task done; the facts cite nothing, so no check verifies them: the run ends
    # unverified (exit 1), as any run would whose answer nothing checked
    assert outcome.final is not None and outcome.final.status == "unverified", outcome.final
    assert outcome.exit_code == 1
    assert outcome.final.summary.startswith(f"{int(RPM * 1.2) + 10} tasks done, 0 failed")
    arrivals = sorted(chat.arrivals)
    assert arrivals[-1] - arrivals[0] > 60, "the run must span a whole minute of demand"
    # the provider never sees more than the limit in any 60 s...
    print(f"busiest minute {chat.busiest(60.0)} of {RPM} rpm; {len(arrivals)} calls")
    assert chat.busiest(60.0) <= RPM
    # ...and the run keeps it nearly full: the first minute of calls, and all of them
    first_minute = sum(1 for t in arrivals if t < arrivals[0] + 60)
    assert first_minute >= 0.9 * RPM, first_minute
    rate = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0]) * 60
    print(f"first minute {first_minute}, overall {rate:.1f} rpm")
    assert rate >= 0.9 * RPM, rate
    # the four processes all called (the limit is shared, not one process's)
    usages = [u for u in payloads(outcome, "usage") if u.model == "local-model"]
    assert len(usages) == len(arrivals)
    callers = {
        r.envelope.sender
        for r in records(outcome)
        if r.envelope is not None and r.envelope.payload.type == "usage"
    }
    assert sum(1 for s in callers if s.startswith("researcher/")) == RESEARCHERS
    # waits are typed and on the record
    assert sum(u.rate_wait_s for u in usages) > 30


CALLS = 12


@pytest.mark.timeout(300)
async def test_a_calls_budget_holds_across_worker_processes(run_id: str, tmp_path: Path) -> None:
    # 16 calls at once could start (4 processes x 4), each slow enough to be in flight
    # together: a per-process budget would let about 4 x the limit through.
    with chat_server(answer(1.0)) as chat:
        async with (
            EmbeddedServer(tmp_path / "nats") as nats,
            workers(specs(nats.url), run_id=run_id, runs_dir=tmp_path / "w"),
        ):
            text = scenario(chat.url, tasks=40, calls=CALLS)
            outcome = await asyncio.wait_for(run_external(text, nats.url, run_id, tmp_path), 240)

    assert outcome.final is not None
    assert outcome.final.status == "budget_exhausted", outcome.final
    model_calls = [u for u in payloads(outcome, "usage") if u.kind == "model"]
    planned = sum(1 for u in model_calls if u.model == "scripted")  # the planner's, counted too
    assert len(model_calls) == planned + len(chat.arrivals)
    assert planned + len(chat.arrivals) <= CALLS + 1, (planned, len(chat.arrivals))
    assert planned + len(chat.arrivals) >= CALLS  # the budget was used, not refused early
