"""A ``society run`` stopped by SIGTERM (``timeout``, a service manager) at any phase leaves
its whole log in ``log.jsonl`` and a summary, and nothing running."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from bus.logfile import read_jsonl
from bus.payloads import Final
from tests.proc import alive

from .humans import ROOT, Proc

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(180)]


SLOW = """
name: slow
goal: {text: Explain what a factorial is and compute a big one.}
models: {default: {provider: scripted}}
sandbox: {timeout_s: 120, pool_size: 1}
budgets: {wall_s: 120}
roles:  # the team's plan, so that its coding task (crunch) is the one a SIGTERM stops
  planner: {one_task_first: false}
  manager: {goal_check: false}  # no second program busy beside it
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer:
        success_criteria: [a factorial is explained and computed]
        tasks:
          - {id: explain, role: researcher, description: "Explain what a factorial is, as a product of natural numbers.", outputs: [meaning]}
          - {id: crunch, role: coder, description: Compute the factorial of a million., inputs: [meaning], outputs: [answer], depends_on: [explain]}
  researcher:
    - answer: {outputs: {meaning: "n! is the product of the whole numbers from 1 to n"}, sources: [primes.md]}
  coder:
    - instructions: without seeing it  # the verifier's statement, before any program
      answer: {kind: count}
    - match: Your task  # the first candidate sleeps: the task is busy until it is stopped
      answer: "```python\\nimport time\\ntime.sleep(100)\\n```"
"""
"""A run whose coder sleeps 100 s, on the live path: busy until it is stopped."""


PHASES = [
    # (scenario, the line after which SIGTERM arrives, the run reached its goal, final status)
    ("slow", r"starting the sandbox pool", False, None),
    ("slow", r"take part: society attach", None, None),
    ("slow", r"crunch \(coder\) attempt 1", True, "aborted"),  # the code sleeps 100 s
    ("quickstart", r"final: succeeded", True, "succeeded"),
]


@pytest.mark.parametrize(("name", "after", "goal", "status"), PHASES)
async def test_sigterm_at_any_phase_leaves_the_whole_log_and_a_summary(
    tmp_path: Path, name: str, after: str, goal: bool | None, status: str | None
) -> None:
    if name == "slow":
        scenario = tmp_path / "slow.yaml"
        scenario.write_text(SLOW)
        (tmp_path / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    else:
        scenario = ROOT / "scenarios" / "quickstart.yaml"
    runs, run_id = tmp_path / "runs", f"{name}-{time.time_ns()}"
    run = await Proc.start("run", str(scenario), "--runs-dir", str(runs), "--run-id", run_id)
    try:
        await run.expect(after, timeout=120)
        run.proc.send_signal(signal.SIGTERM)
        code = await run.finish(timeout=120)
    finally:
        run.stop()
    run_dir = runs / run_id
    assert code in (0, 1, 130), run.transcript
    assert "Traceback" not in run.transcript
    read = read_jsonl(run_dir / "log.jsonl")
    assert read.problems == [], read.problems
    payloads = [r.envelope.payload for r in read.records if r.envelope]
    kinds = [p.type for p in payloads]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["log"] == str((run_dir / "log.jsonl").resolve())
    if goal:
        finals = [p for p in payloads if isinstance(p, Final)]
        assert "goal" in kinds and [f.status for f in finals] == [status], kinds
        assert summary["status"] == status
    server = json.loads((run_dir / "server.json").read_text())
    assert not alive(server["pid"])  # the run's nats-server is gone
