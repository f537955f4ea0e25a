"""The OpenAI-compatible path end to end: the real openai SDK (through AutoGen's client)
against a local HTTP server that speaks chat completions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bus.payloads import Usage

from ..chat_server import chat_server
from .conftest import RunYaml, payloads, records

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(120)]

SECRET = "sk-test-very-secret-key-1234567890"

PLAN = {
    "success_criteria": ["a definition is given"],
    "tasks": [
        {
            "id": "define",
            "role": "researcher",
            "description": "Say what a prime number is.",
            "outputs": ["answer"],
        }
    ],
}


def respond(body: dict[str, Any]) -> str:
    system = body["messages"][0]["content"]
    if "You are the planner" in system:
        return "Here is the plan:\n```json\n" + json.dumps(PLAN) + "\n```"
    answer = {"outputs": {"answer": "A prime has exactly two divisors."}, "sources": ["primes.md"]}
    return json.dumps(answer)


def scenario(url: str, extra: str = "") -> str:
    return f"""
name: openai_path
goal: {{text: Say what a prime number is.}}
models:
  default:
    provider: openai
    config:
      model: local-model
      base_url: {url}
      api_key: ${{SOCIETY_TEST_KEY}}
      model_info: {{vision: false, function_calling: false, json_output: true, family: unknown, structured_output: false}}
    price: {{input: 1.0, output: 2.0}}
# the fake server plans (also the first plan: the planner's model is asked) and its research
# cites the document it read, so the researcher's answer is verified by its source
roles: {{researcher: {{corpus: [corpus]}}, planner: {{one_task_first: false}}}}
{extra}
"""


async def test_openai_compatible_server_end_to_end(
    run_yaml: RunYaml, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIETY_TEST_KEY", SECRET)
    with chat_server(respond) as server:
        outcome = await run_yaml(scenario(server.url))
    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert outcome.final.answer == "A prime has exactly two divisors."
    assert len(server.requests) == 2
    assert all(r["model"] == "local-model" for r in server.requests)
    assert server.auth_headers[0] == f"Bearer {SECRET}"
    usages: list[Usage] = [u for u in payloads(outcome, "usage") if u.kind == "model"]
    assert [u.model for u in usages] == ["local-model", "local-model"]
    assert all(u.tokens_in > 0 and u.tokens_out > 0 for u in usages)
    expected = (usages[0].tokens_in * 1.0 + usages[0].tokens_out * 2.0) / 1e6
    assert usages[0].cost == pytest.approx(expected)
    # the API key never reaches the message log or the run folder
    assert outcome.log_path is not None
    assert SECRET not in outcome.log_path.read_text()
    for path in outcome.run_dir.rglob("*.json"):
        assert SECRET not in path.read_text()
    assert len(records(outcome)) > 5


async def test_rate_limit_answers_are_retried_with_backoff(
    run_yaml: RunYaml, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIETY_TEST_KEY", SECRET)
    with chat_server(respond, rate_limit_first=3, retry_after=0.1) as server:
        outcome = await run_yaml(scenario(server.url))
    assert outcome.exit_code == 0, outcome.final
    assert server.refused == 3
    assert len(server.requests) == 2
