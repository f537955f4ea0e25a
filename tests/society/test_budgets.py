"""Budgets crossing their limits mid-run: a clean final message, nothing spent past the
stated bound, the log complete, no containers left behind."""

from __future__ import annotations

import time

import pytest

from bus.payloads import Final, Usage
from tests.containers import containers_left

from .conftest import RunYaml, payloads

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]


def three_step_scenario(budgets: str, extra: str = "") -> str:
    return f"""
name: budgeted
goal: {{text: Answer three questions about primes one after the other.}}
models:
  default:
    provider: scripted
    price: {{input: 1000.0, output: 1000.0}}
budgets: {budgets}
# the budgets are the point: the planner is asked for its plan of three research steps
# (the researcher is offered though it has nothing to read), with no goal check added
roles:
  planner: {{one_task_first: false, offer_researcher: true}}
  manager: {{goal_check: false}}
{extra}
script:
  planner:
    - answer:
        success_criteria: [three answers]
        tasks:
          - {{id: q1, role: researcher, description: "Is two a prime number?", outputs: [a1]}}
          - {{id: q2, role: researcher, description: "Is nine a prime number?", outputs: [a2], inputs: [a1], depends_on: [q1]}}
          - {{id: q3, role: researcher, description: "Is eleven a prime number?", outputs: [answer], inputs: [a2], depends_on: [q2]}}
      tokens_in: 100
      tokens_out: 50
  researcher:
    - {{match: 'task \\(q1\\)', answer: {{outputs: {{a1: "yes"}}}}, tokens_in: 100, tokens_out: 50}}
    - {{match: 'task \\(q2\\)', answer: {{outputs: {{a2: "no"}}}}, tokens_in: 100, tokens_out: 50}}
    - {{match: 'task \\(q3\\)', answer: {{outputs: {{answer: "yes"}}}}, tokens_in: 100, tokens_out: 50}}
"""


def model_usages(outcome: object) -> list[Usage]:
    return [u for u in payloads(outcome, "usage") if u.kind == "model"]  # type: ignore[arg-type]


def assert_clean_stop(outcome: object, budget: str) -> Final:
    final: Final = payloads(outcome, "final")[0]  # type: ignore[arg-type]
    assert final.status == "budget_exhausted"
    assert budget in final.reason
    assert outcome.exit_code == 1  # type: ignore[attr-defined]
    return final


async def test_calls_budget_is_exact(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(three_step_scenario("{calls: 3}"))
    final = assert_clean_stop(outcome, "calls=3")
    assert len(model_usages(outcome)) == 3  # never a 4th call
    assert final.outputs == {"a1": "yes", "a2": "no"}  # partial results


async def test_token_budget_overshoots_at_most_one_answer(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(three_step_scenario("{tokens: 400}"))
    assert_clean_stop(outcome, "tokens=400")
    used = sum(u.tokens_in + u.tokens_out for u in model_usages(outcome))
    assert used <= 400 + 50  # at most one answer beyond the limit (see roles/budget_guard.py)


async def test_cost_budget_from_the_price_table(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(three_step_scenario("{cost: 0.35}"))
    assert_clean_stop(outcome, "cost=0.35")
    usages = model_usages(outcome)
    assert all(u.cost == pytest.approx((u.tokens_in + u.tokens_out) * 1000 / 1e6) for u in usages)
    assert sum(u.cost for u in usages) <= 0.35 + 0.05 + 1e-9


async def test_unknown_price_with_a_cost_budget_refuses_to_start(run_yaml: RunYaml) -> None:
    from society.errors import ModelConfigError

    text = three_step_scenario("{cost: 1.0}").replace(
        "    provider: scripted\n    price: {input: 1000.0, output: 1000.0}",
        "    provider: openai\n    config: {model: my-private-model, api_key: x}",
    )
    with pytest.raises(ModelConfigError, match="no known price"):
        await run_yaml(text)


async def test_wall_clock_budget_cancels_work_in_flight(run_yaml: RunYaml) -> None:
    text = three_step_scenario("{wall_s: 1.5}").replace(
        '{outputs: {a2: "no"}}, tokens_in', '{outputs: {a2: "no"}}, delay_s: 60, tokens_in'
    )
    start = time.monotonic()
    outcome = await run_yaml(text)
    assert time.monotonic() - start < 10
    assert_clean_stop(outcome, "wall_s=1.5")
    kinds = [r.payload.type for r in (r.envelope for r in _records(outcome)) if r]
    assert "control" in kinds  # work in flight was cancelled
    results = payloads(outcome, "result")
    assert ("q2", "cancelled") in [(r.task_id, r.status) for r in results]


def _records(outcome: object) -> list:  # type: ignore[type-arg]
    from .conftest import records

    return records(outcome)  # type: ignore[arg-type]


SLEEPY = """
name: sleepy
goal: {text: Run three slow computations one after the other.}
models: {default: {provider: scripted}}
sandbox: {timeout_s: 3, pool_size: 1}
budgets: {sandbox_s: 5}
script:
  planner:
    - answer:
        success_criteria: [done]
        tasks:
          - {id: s1, role: coder, description: First slow step., outputs: [x1]}
          - {id: s2, role: coder, description: Second slow step., outputs: [x2], inputs: [x1], depends_on: [s1]}
          - {id: s3, role: coder, description: Third slow step., outputs: [answer], inputs: [x2], depends_on: [s2]}
  coder:
    - {match: First, answer: "```python\\nimport time; time.sleep(1.2); print(1)\\n```"}
    - {match: Second, answer: "```python\\nimport time; time.sleep(1.2); print(2)\\n```"}
    - {match: Third, answer: "```python\\nimport time; time.sleep(1.2); print(3)\\n```"}
"""


@pytest.mark.timeout(300)  # the run, then up to 150 s for Docker's removals
async def test_sandbox_seconds_are_never_exceeded_and_no_container_is_left(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(SLEEPY, sandbox_factory=None)  # the run's own pool, labelled by run id
    assert_clean_stop(outcome, "sandbox_s=5")
    runs = payloads(outcome, "exec_result")
    assert len(runs) == 2  # the third run would have held 3 s more than is left
    assert sum(r.wall_s for r in runs) <= 5
    assert containers_left(outcome.run_id) == []
