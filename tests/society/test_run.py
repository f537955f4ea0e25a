"""Whole runs over the real bus and the real Docker sandbox, with scripted models."""

from __future__ import annotations

import base64

import pytest

from bus.payloads import (
    ExecResult,
    Final,
    PlanDecision,
    PlanRequest,
    TaskAssignment,
    TaskResult,
    Usage,
)

from .conftest import ROOT, RunYaml, payloads, records

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]


async def test_quickstart_runs_branches_in_parallel_in_docker(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(ROOT / "scenarios" / "quickstart.yaml")
    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert "1229 primes below 10000" in (outcome.final.answer or "")
    # two tasks in flight at once: both branches assigned before either result came back
    kinds = [r.envelope.payload.type for r in records(outcome) if r.envelope]
    first_result = kinds.index("result")
    assert kinds[:first_result].count("task") == 2
    runs = payloads(outcome, "exec_result")
    # the live path: two programs for the count, two candidates and the verifier's check
    # for the answer, and the goal check's two programs
    assert len(runs) == 7
    (check,) = [r for r in payloads(outcome, "result") if r.task_id == "goal_check"]
    assert [v.kind for v in check.verdicts if v.passed] == ["goal_check", "agreement"]
    assert all(isinstance(r, ExecResult) and r.exit_code == 0 for r in runs)
    report = outcome.run_dir / "artifacts" / "compare" / "report.md"
    assert "1229" in report.read_text()
    assert [a.name for a in outcome.final.artifacts] == ["report.md"]
    assert (outcome.run_dir / "summary.json").is_file()
    goal = payloads(outcome, "goal")[0]  # the log records the settings in force
    assert goal.scenario["roles"]["coder"]["cross_check"] is True
    assert goal.scenario["roles"]["manager"]["goal_check"] is True
    assert goal.scenario["roles"]["planner"]["offer_researcher"] is True


async def test_failing_code_is_fixed_on_retry(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(ROOT / "scenarios" / "code_retry.yaml")
    assert outcome.exit_code == 0
    runs = payloads(outcome, "exec_result")
    # the typo, its fix, the second candidate, the verifier's check over both
    assert [r.exit_code for r in runs] == [1, 0, 0, 0]
    assert "mediam" in runs[0].stderr
    assert outcome.final is not None
    assert outcome.final.answer == "mean 4.0000, median 4"


async def test_invalid_plans_are_repaired(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(ROOT / "scenarios" / "plan_repair.yaml")
    assert outcome.exit_code == 0
    decisions = payloads(outcome, "plan_decision")
    assert [d.accepted for d in decisions] == [False, False, True]
    assert "cycle" in decisions[0].errors[0]
    assert "produced by both 'pick' and 'other'" in decisions[1].errors[0]
    requests = payloads(outcome, "plan_request")
    assert [(r.reason, r.attempt) for r in requests] == [
        ("initial", 1),
        ("invalid", 2),
        ("invalid", 3),
    ]
    assert requests[1].errors == decisions[0].errors


CYCLIC = """
name: cyclic
goal: {text: Do two things that need each other.}
models: {default: {provider: scripted}}
roles: {manager: {max_plan_tries: 2}, planner: {one_task_first: false}}
script:
  planner:
    - answer: {success_criteria: [done], tasks: [{id: a, role: coder, description: first, depends_on: [b]}, {id: b, role: coder, description: second, depends_on: [a]}]}
    - answer: {success_criteria: [done], tasks: [{id: a, role: coder, description: first, depends_on: [b]}, {id: b, role: coder, description: second, depends_on: [a]}]}
"""


async def test_a_plan_that_stays_cyclic_fails_cleanly(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(CYCLIC)
    assert outcome.exit_code == 1
    assert outcome.final is not None
    assert outcome.final.status == "failed"
    assert "no valid plan after 2 tries" in outcome.final.reason
    assert "cycle" in outcome.final.reason
    kinds = [r.envelope.payload.type for r in records(outcome) if r.envelope]
    assert kinds.count("plan") == 2
    assert kinds.count("plan_decision") == 2
    assert "final" in kinds


NONSENSE = """
name: nonsense
goal: {text: Anything at all.}
models: {default: {provider: scripted}}
roles: {planner: {max_parse_tries: 2, one_task_first: false}}
script:
  planner:
    - answer: "I think we should just wing it."
    - answer: '{"tasks": "many"}'
"""


async def test_a_planner_answering_nonsense_fails_cleanly(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(NONSENSE)
    assert outcome.exit_code == 1
    assert outcome.final is not None
    assert "the planner could not produce a plan" in outcome.final.reason
    assert "did not validate after 2 tries" in outcome.final.reason
    usages = [u for u in payloads(outcome, "usage") if u.kind == "model"]
    assert [u.answer for u in usages] == ["I think we should just wing it.", '{"tasks": "many"}']


STRUCTURED_RETRY = """
name: structured_retry
goal: {text: Explain what a prime number is.}
models: {default: {provider: scripted}}
roles: {planner: {one_task_first: false}, researcher: {corpus: [corpus]}}
script:
  planner:
    - answer: {success_criteria: [a definition is given], tasks: [{id: define, role: researcher, description: Explain what a prime number is., outputs: [answer]}]}
  researcher:
    - answer: "Primes are numbers divisible only by one and themselves."
    - answer: {outputs: {definition: "wrong key"}, summary: "oops"}
    - answer: {outputs: {answer: "A prime is a natural number above 1 divisible only by 1 and itself."}, sources: [primes.md]}
"""


async def test_answer_that_does_not_validate_twice_then_validates(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(STRUCTURED_RETRY)
    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert outcome.final.answer is not None
    assert outcome.final.answer.startswith("A prime is")
    calls = [
        r.envelope
        for r in records(outcome)
        if r.envelope and r.envelope.role == "researcher" and r.envelope.payload.type == "usage"
    ]
    assert len(calls) == 3
    assert calls[0].payload.answer.startswith("Primes are")  # type: ignore[union-attr]


REPLAN_AFTER_FAILURE = """
name: replan_after_failure
goal: {text: Compute the sum of the numbers and describe it.}
models: {default: {provider: scripted}}
roles:
  manager: {max_task_retries: 0, goal_check: false}
  planner: {one_task_first: false}
  researcher: {corpus: [corpus]}
  coder: {max_attempts: 2, cross_check: false}  # its task fails either way
budgets: {replans: 1}
script:
  planner:
    - answer:
        success_criteria: [the sum is computed]
        tasks:
          - {id: describe, role: researcher, description: Describe what summing numbers means., outputs: [meaning]}
          - {id: add, role: coder, description: Add up the numbers one to ten., outputs: [answer], inputs: [meaning], depends_on: [describe]}
    - match: "revision 2"
      answer:
        success_criteria: [the sum is computed]
        tasks:
          - {id: add_again, role: researcher, description: State the sum of the natural numbers one to ten., inputs: [meaning], outputs: [answer]}
  researcher:
    - match: Describe what summing
      answer: {outputs: {meaning: "adding them all together"}}
    - match: State the sum
      answer: {outputs: {answer: "The sum of 1..10 is 55."}, sources: [primes.md]}
  coder:
    - answer: "```python\\nraise SystemExit('no luck')\\n```"
    - answer: "```python\\nraise SystemExit('still no luck')\\n```"
"""


async def test_failed_task_triggers_a_replan_that_keeps_completed_work(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(REPLAN_AFTER_FAILURE)
    assert outcome.exit_code == 0, outcome.final
    requests: list[PlanRequest] = payloads(outcome, "plan_request")
    assert [r.reason for r in requests] == ["initial", "failure"]
    assert requests[1].completed == {"describe": {"meaning": "adding them all together"}}
    assert "add" in requests[1].failed
    assigned = [a.task.id for a in payloads(outcome, "task") if isinstance(a, TaskAssignment)]
    assert assigned == ["describe", "add", "add_again"]  # "describe" is not redone
    results: list[TaskResult] = payloads(outcome, "result")
    assert [(r.task_id, r.status) for r in results] == [
        ("describe", "done"),
        ("add", "failed"),
        ("add_again", "done"),
    ]
    assert outcome.final is not None
    assert outcome.final.answer == "The sum of 1..10 is 55."


async def test_failure_with_no_replans_left_stops_with_the_reason(run_yaml: RunYaml) -> None:
    text = REPLAN_AFTER_FAILURE.replace("budgets: {replans: 1}", "budgets: {replans: 0}")
    outcome = await run_yaml(text)
    assert outcome.exit_code == 1
    final: Final = payloads(outcome, "final")[0]
    assert final.status == "failed"
    assert "task add failed after 1 attempts" in final.reason
    assert "still no luck" in final.reason
    assert final.outputs == {"meaning": "adding them all together"}  # partial results kept
    decisions: list[PlanDecision] = payloads(outcome, "plan_decision")
    assert len(decisions) == 1


async def test_every_model_call_is_recorded_with_its_answer(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(ROOT / "scenarios" / "quickstart.yaml")
    usages: list[Usage] = [u for u in payloads(outcome, "usage") if u.kind == "model"]
    # planner, researcher, the verifier's statement, two programs for the count, two
    # candidates for the answer, the goal check's two programs
    assert len(usages) == 9
    assert all(u.fingerprint and u.answer and u.tokens_in > 0 for u in usages)
    sandbox = [u for u in payloads(outcome, "usage") if u.kind == "sandbox"]
    assert len(sandbox) == 7
    assert all(u.sandbox_s > 0 for u in sandbox)


PRIORITY = """
name: priority
goal: {text: Answer three questions about primes.}
models: {default: {provider: scripted}}
roles:  # the dispatch order is the point: no goal check task beside the three
  researcher: {concurrency: 1, corpus: [corpus]}
  planner: {one_task_first: false}
  manager: {goal_check: false}
script:
  planner:
    - answer:
        success_criteria: [three answers]
        tasks:
          - {id: low, role: researcher, description: "Is 1 a prime number?", outputs: [a1], value: 1, effort: 2}
          - {id: high, role: researcher, description: "Is 2 a prime number?", outputs: [a2], value: 4, effort: 1}
          - {id: mid, role: researcher, description: "Is 9 a prime number?", outputs: [a3], value: 2, effort: 1}
  researcher:
    - {match: "Is 1 ", answer: {outputs: {a1: "no"}, sources: [primes.md]}}
    - {match: "Is 2 ", answer: {outputs: {a2: "yes"}, sources: [primes.md]}}
    - {match: "Is 9 ", answer: {outputs: {a3: "no"}, sources: [primes.md]}}
"""


async def test_dispatch_follows_priority_when_capacity_is_short(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(PRIORITY)
    assert outcome.exit_code == 0, outcome.final
    assigned = [a.task.id for a in payloads(outcome, "task")]
    assert assigned == ["high", "mid", "low"]
    assert outcome.state.max_in_flight == 1


async def test_independent_tasks_are_dispatched_together(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(PRIORITY.replace("concurrency: 1", "concurrency: 3"))
    assert outcome.exit_code == 0, outcome.final
    kinds = [r.envelope.payload.type for r in records(outcome) if r.envelope]
    assert kinds.index("result") > max(i for i, k in enumerate(kinds) if k == "task")
    assert outcome.state.max_in_flight == 3


RETRY_WITH_NOTE = """
name: retry_note
goal: {text: State one fact about the number seven.}
models: {default: {provider: scripted}}
roles:
  manager: {max_task_retries: 1}
  planner: {one_task_first: false}
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer: {success_criteria: [a fact is stated], tasks: [{id: fact, role: researcher, description: State one fact about the prime number seven., outputs: [answer]}]}
  researcher:
    - match: 'Attempt 1 failed: the model'
      answer: {outputs: {answer: "Seven is prime."}, sources: [primes.md]}
    - answer: "no fact, just prose"
    - answer: "no fact, still prose"
    - answer: "no fact, prose again"
"""


async def test_a_retried_task_is_told_why_its_last_attempt_failed(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(RETRY_WITH_NOTE)
    assert outcome.exit_code == 0, outcome.final
    assigned = [a for a in payloads(outcome, "task") if isinstance(a, TaskAssignment)]
    assert [a.attempt for a in assigned] == [1, 2]
    assert assigned[0].notes == []
    assert assigned[1].notes and assigned[1].notes[0].startswith("Attempt 1 failed: ")
    assert outcome.final is not None and outcome.final.answer == "Seven is prime."


MISSING_MODULE = """
name: missing_module
goal:
  text: Give the determinant of the matrix.
  inputs: {m: [[2, 1], [1, 3]]}
models:
  default: {provider: scripted}
sandbox: {timeout_s: 20, pool_size: 1}
budgets: {wall_s: 180, calls: 10}
script:  # the first plan is one coding task for the goal, as in a live run
  coder:
    - instructions: without seeing it  # the verifier's statement
      answer: {kind: amount}
    - match: independent check of a teammate  # the second candidate
      answer: |
        ```python
        print(m[0][0] * m[1][1] - m[0][1] * m[1][0])
        ```
    - answer: |
        ```python
        import sklearn
        ```
    - match: "no module 'sklearn' and cannot install one\\\\. Available: the standard library of Python 3\\\\.11\\\\.\\\\d+ and .*numpy"
      answer: |
        ```python
        import json, numpy
        m = json.load(open("inputs.json"))["m"]
        json.dump({"answer": round(float(numpy.linalg.det(m)), 6)}, open("outputs.json", "w"))
        ```
"""


async def test_a_missing_module_is_fed_back_with_what_the_image_holds(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(MISSING_MODULE)
    assert outcome.exit_code == 0, outcome.final
    runs = payloads(outcome, "exec_result")  # then the second candidate, the verifier's check
    assert [r.exit_code for r in runs] == [1, 0, 0, 0]
    assert "No module named 'sklearn'" in runs[0].stderr
    assert outcome.final is not None and outcome.final.outputs == {"answer": 5.0}
    goal = payloads(outcome, "goal")[0]
    assert goal.scenario["sandbox"]["manifest"]["modules"]["numpy"] == "numpy"
    asked = [p.read_text() for p in (outcome.run_dir / "prompts").iterdir()]
    told = "The sandbox has Python 3.11"
    assert any(told in text and "numpy" in text and "You are the coder" in text for text in asked)


def _first_candidate_disagreeing() -> str:
    """The quickstart's script with its answer's first candidate (the direct request's)
    computing another ratio: the two programs tie, and the one asked as an independent check
    is kept (`roles.coder.select`)."""
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    return text.replace("ratio = count / estimate\n", "ratio = count / estimate / 2\n")


async def test_a_candidate_that_disagrees_leaves_the_run_unverified(
    run_yaml: RunYaml,
) -> None:
    # the goal check's two programs other ratios again: the path a live run takes, so nothing
    # verifies it (one of the goal check's programs giving the kept ratio would: see
    # tests/society/test_goal_check.py)
    disagreeing = (
        _first_candidate_disagreeing()
        .replace("len(primes) / estimate:.3f", "len(primes) / estimate / 3:.3f")
        .replace("ratio {count / estimate:.3f}", "ratio {count / estimate / 4:.3f}")
    )
    assert disagreeing.count("/ 2") == 1 and disagreeing.count("/ 3:") == 1
    assert disagreeing.count("/ 4:") == 1
    outcome = await run_yaml(disagreeing)
    assert outcome.exit_code == 1
    assert outcome.final is not None and outcome.final.status == "unverified"
    assert "no other candidate gave these values" in outcome.final.reason
    agreement = [v for v in outcome.final.verdict.verdicts if v.kind == "agreement"]
    assert agreement and not agreement[0].passed


async def test_the_goal_check_agreeing_answers_a_candidate_that_disagrees(
    run_yaml: RunYaml,
) -> None:
    # the goal check's own program gives the answer's values: another candidate agreeing
    outcome = await run_yaml(_first_candidate_disagreeing())
    assert outcome.final is not None and outcome.final.status == "succeeded", outcome.final
    agreement = [v for v in outcome.final.verdict.verdicts if v.kind == "agreement"]
    assert agreement and agreement[0].passed
    assert "the goal check's own program gives these values" in agreement[0].what


async def test_the_goal_check_picks_a_candidate_level_with_the_one_kept(
    run_yaml: RunYaml,
) -> None:
    # the answer's second program (kept: of two programs that tie, the one asked as an
    # independent check) computes another ratio and writes its own report; the goal check
    # gives the first one's values
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    wrong = 'ratio = prime_count / estimate / 2\n        open("report.md", "w").write("wrong")'
    second_wrong = text.replace("ratio = prime_count / estimate", wrong)
    assert second_wrong.count("/ 2") == 1
    outcome = await run_yaml(second_wrong)
    final = outcome.final
    assert final is not None and final.status == "succeeded", final
    assert "1.132 times the estimate" in (final.answer or ""), final.answer
    why = "the goal check agrees with another than the one it kept"
    assert any(why in c for c in final.verdict.checks)
    # the files are the picked candidate's report, not the kept one's
    assert [a.path for a in final.artifacts] == ["artifacts/compare/level-1/report.md"]
    assert "1.132 times" in (outcome.run_dir / final.artifacts[0].path).read_text()
    # its verdicts are its own: the agreement the goal check answers rests on its run
    runs = {
        r.envelope.id: r.envelope.payload
        for r in records(outcome)
        if r.envelope and isinstance(r.envelope.payload, ExecResult)
    }
    (agreement,) = [v for v in final.verdict.verdicts if v.kind == "agreement"]
    assert agreement.passed
    assert b"1.132 times" in base64.b64decode(runs[agreement.candidate].files["report.md"])
