"""A goal whose answer is a function (a deliverable): one coding task, no planner call; the
coder runs the examples its docstring states in the sandbox, shows a failure back, and
the answer is the code that passed them (or, when none did, the best, unverified)."""

from __future__ import annotations

import pytest

from bus.payloads import Usage

from .conftest import RunYaml, payloads
from .test_real_work import coded

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]

RIGHT = """
def add_one(x):
    return x + 1
"""
OFF_BY_ONE = """
def add_one(x):
    return x + 2
"""
BELOW = """
def add_one(x):
    return x - 1
"""
ALMOST = """
def add_one(x):
    return x + 1 if x else 0
"""


def scenario(*coder: tuple[str | None, str], drafts: int = 3, tests: str = "") -> str:
    """A function goal, and the coder's answers: (pattern or None, code); with ``tests``
    (assert lines), checks are on and the verifier answers its request with them."""
    answers = coded(*coder)
    if tests:
        answers = coded(("Write 6 tests of", tests)) + answers
    return (
        f"""
name: function
goal:
  text: Complete the function add_one.
  deliverable:
    function: add_one
    stub: |
      def add_one(x):
          \"\"\"One more than x.
          >>> add_one(1)
          2
          >>> add_one(0) == 1
          \"\"\"
models: {{default: {{provider: scripted}}}}
roles: {{coder: {{max_attempts: 2, fresh_drafts: {drafts}, cross_check: {bool(tests)}}}}}
sandbox: {{timeout_s: 20, pool_size: 1}}
budgets: {{wall_s: 120, replans: 0}}
script:
  coder:
"""
        + "\n".join(answers)
        + "\n"
    )


async def test_the_code_that_passes_its_examples_is_the_answer(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(scenario(("returned 3, expected 2", RIGHT), (None, OFF_BY_ONE)))
    final = outcome.final
    assert final is not None and final.status == "succeeded", final
    assert final.answer is not None and "return x + 1" in final.answer
    assert final.verdict is not None and final.verdict.verified
    assert final.verdict.checks == [
        "implement: its code passed the 2 examples its docstring states"
    ]
    (plan,) = payloads(outcome, "plan")
    assert [(t.id, t.role, t.outputs) for t in plan.tasks] == [("implement", "coder", ["answer"])]
    calls = [u for u in payloads(outcome, "usage") if isinstance(u, Usage) and u.kind == "model"]
    assert {u.model for u in calls} == {"scripted"} and len(calls) == 2  # no planner call
    (assignment,) = payloads(outcome, "task")
    assert assignment.deliverable is not None and assignment.deliverable.function == "add_one"
    runs = payloads(outcome, "exec_result")
    assert [r.exit_code for r in runs] == [1, 0]  # the examples ran in the sandbox
    assert [a.name for a in final.artifacts] == ["solution.py"]


async def test_with_no_draft_passing_the_best_is_kept_unverified(run_yaml: RunYaml) -> None:
    # the first draft passes 1 of 2 examples; its fix and the fresh draft pass none
    outcome = await run_yaml(scenario((None, ALMOST), (None, OFF_BY_ONE), (None, BELOW), drafts=1))
    final = outcome.final
    assert final is not None and final.status == "unverified", final
    assert outcome.exit_code == 1
    assert final.answer is not None and "if x else 0" in final.answer
    (result,) = payloads(outcome, "result")
    assert "1 of 2 examples passed" in result.summary
    assert len(payloads(outcome, "exec_result")) == 3


async def test_the_same_code_again_is_not_run_again_and_a_fresh_draft_follows(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(
        scenario(("Solve it afresh", RIGHT), (None, OFF_BY_ONE), (None, OFF_BY_ONE))
    )
    final = outcome.final
    assert final is not None and final.status == "succeeded", final
    assert final.answer is not None and "return x + 1" in final.answer
    calls = [u for u in payloads(outcome, "usage") if isinstance(u, Usage) and u.kind == "model"]
    assert len(calls) == 3
    assert len(payloads(outcome, "exec_result")) == 2  # the repeated code never ran


CLAMPED = """
def add_one(x):
    return x + 1 if x >= 0 else 0
"""


async def test_a_draft_that_fails_the_verifiers_test_gives_way_to_one_that_passes(
    run_yaml: RunYaml,
) -> None:
    # the first draft passes the docstring's examples but not the verifier's test of -3;
    # a fresh draft (not a repair) passes both, and is the answer
    tests = "assert add_one(5) == 6\nassert add_one(-3) == -2"
    outcome = await run_yaml(
        scenario(("Solve it afresh", RIGHT), ("One more than x", CLAMPED), tests=tests)
    )
    final = outcome.final
    assert final is not None and final.status == "succeeded", final
    assert final.answer is not None and "return x + 1\n" in final.answer
    assert final.verdict is not None
    kinds = [(v.kind, v.passed) for v in final.verdict.verdicts]
    assert kinds == [("examples", True), ("property", True)], kinds
    runs = payloads(outcome, "exec_result")
    assert [r.exit_code for r in runs] == [0, 0, 0, 0]  # examples, tests; examples, tests
    assert '["0", false]' in runs[1].stdout  # the first draft gave 0 for -3


async def test_an_answer_failing_the_verifiers_test_is_never_succeeded(
    run_yaml: RunYaml,
) -> None:
    # every later draft fails the docstring's examples: the one that passed them, but not
    # the verifier's test, is the answer, unverified, and the reason says which check failed
    tests = "assert add_one(-3) == -2"
    outcome = await run_yaml(
        scenario(
            ("One more than x", CLAMPED),
            ("Solve it afresh", OFF_BY_ONE),
            ("by hand first", BELOW),
            ("a different way", OFF_BY_ONE + "\n# again"),
            tests=tests,
        )
    )
    final = outcome.final
    assert final is not None and final.status == "unverified", final
    assert final.answer is not None and "if x >= 0" in final.answer
    assert "it passed 0 of the 1 tests the verifier wrote" in final.reason
