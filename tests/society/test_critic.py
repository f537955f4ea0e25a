"""The critic, replanning and the reflector's lessons, on scenarios that provoke each failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from bus.payloads import Critique, Final, Lesson, PlanRequest

from .conftest import ROOT, RunYaml, payloads, records

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]

FAILURES = ROOT / "scenarios" / "failures"


def evidence_types(outcome: object, critique: Critique) -> set[str]:
    by_id = {r.envelope.id: r.envelope for r in records(outcome) if r.envelope}  # type: ignore[arg-type]
    assert all(e in by_id for e in critique.evidence), "evidence must point at logged messages"
    return {by_id[e].payload.type for e in critique.evidence}


@pytest.mark.parametrize(
    ("scenario", "detector", "verdict", "evidence", "kept"),
    [
        ("same_error", "same_error", "loop", {"exec_result"}, {"explain"}),
        ("ping_pong", "ping_pong", "loop", {"chat"}, {"define"}),
        ("drift", "drift", "drift", {"plan", "task"}, set()),
        ("stall", "stall", "stall", {"plan"}, set()),
    ],
)
async def test_each_failure_is_named_and_replanned(
    run_yaml: RunYaml,
    scenario: str,
    detector: str,
    verdict: str,
    evidence: set[str],
    kept: set[str],
) -> None:
    outcome = await run_yaml(FAILURES / f"{scenario}.yaml")
    critiques: list[Critique] = payloads(outcome, "critique")
    assert critiques, "the critic said nothing"
    first = critiques[0]
    assert (first.detector, first.verdict) == (detector, verdict)
    assert evidence_types(outcome, first) <= evidence
    assert len(first.evidence) >= 1
    requests: list[PlanRequest] = payloads(outcome, "plan_request")
    assert [(r.reason, r.revision) for r in requests] == [("initial", 1), ("critique", 2)]
    assert requests[1].evidence == first.evidence
    assert detector in (requests[1].critique or "")
    assert set(requests[1].completed) == kept  # completed work is handed over, not redone
    assigned = [a.task.id for a in payloads(outcome, "task")]
    for task_id in kept:
        assert assigned.count(task_id) == 1
    plans = payloads(outcome, "plan")
    assert [p.revision for p in plans] == [1, 2]
    assert outcome.exit_code == 0, outcome.final
    assert outcome.state.replans == 1


async def test_replans_past_the_bound_stop_naming_detector_and_evidence(run_yaml: RunYaml) -> None:
    text = (FAILURES / "same_error.yaml").read_text().replace("replans: 2", "replans: 0")
    outcome = await run_yaml(text)
    assert outcome.exit_code == 1
    final: Final = payloads(outcome, "final")[0]
    assert final.status == "budget_exhausted"
    assert "same_error detector" in final.reason
    assert "replan budget (0) is spent" in final.reason

    critique: Critique = payloads(outcome, "critique")[0]
    assert all(e in final.reason for e in critique.evidence)
    assert final.outputs == {"meaning": "n! is the product of the whole numbers from 1 to n"}


@pytest.mark.parametrize("scenario", ["quickstart", "code_retry", "plan_repair"])
async def test_no_false_alarm_on_healthy_examples(run_yaml: RunYaml, scenario: str) -> None:
    outcome = await run_yaml(ROOT / "scenarios" / f"{scenario}.yaml")
    assert outcome.exit_code == 0
    assert payloads(outcome, "critique") == []
    assert [
        r.reason
        for r in payloads(outcome, "plan_request")
        if r.reason not in ("initial", "invalid")
    ] == []


RECALL = """
name: recall
goal:
  text: Compute the factorial of the number given with the goal and explain what a factorial is.
  inputs: {n: 10}
models: {default: {provider: scripted}}
roles:  # the planner's answer is the point (it needs the lesson); the research is unchecked
  planner: {one_task_first: false, offer_researcher: true}
  researcher: {require_sources: false}
script:
  planner:
    - match: "Lessons from earlier work:[\\\\s\\\\S]*same_error"
      answer:
        success_criteria: [the factorial is computed]
        tasks:
          - {id: explain, role: researcher, description: Explain what a factorial is and give 10 factorial., outputs: [answer]}
  researcher:
    - answer: {outputs: {answer: "10! = 3628800, the product of 1 to 10"}}
"""


async def test_a_lesson_is_recalled_into_a_later_run(run_yaml: RunYaml, tmp_path: Path) -> None:
    memory = tmp_path / "shared-memory"
    first = await run_yaml(FAILURES / "same_error.yaml", memory_dir=memory)
    lessons: list[Lesson] = payloads(first, "lesson")
    assert any("same_error" in lesson.text for lesson in lessons)
    # The second run's only planner answer matches a prompt that holds the lesson: it can
    # only succeed if the lesson was recalled into the planner's prompt.
    second = await run_yaml(RECALL, memory_dir=memory)
    assert [d.accepted for d in payloads(second, "plan_decision")] == [True]
    assert (
        second.final is not None and second.final.answer == "10! = 3628800, the product of 1 to 10"
    )
    assert second.final.status == "unverified"  # an uncited answer carries no check


async def test_without_the_memory_the_lesson_is_not_there(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    outcome = await run_yaml(RECALL, memory_dir=tmp_path / "empty-memory")
    assert outcome.exit_code == 1
    assert outcome.final is not None
    assert "scripted answers for planner ran out" in outcome.final.reason


FIXED_ON_THE_THIRD_TRY = """
name: fixes_itself
goal:
  text: Compute the mean of the numbers, then say whether it is above 3.
  inputs: {numbers: [1, 2, 3, 4, 5, 6]}
models: {default: {provider: scripted}}
roles:
  critic: {every_results: 1, same_error_threshold: 2, repeat_threshold: 2}
  planner: {one_task_first: false}
  manager: {goal_check: false}
sandbox: {timeout_s: 20, pool_size: 1}
budgets: {wall_s: 120, replans: 0}
script:
  planner:
    - answer:
        success_criteria: [the mean is computed, the comparison is stated]
        tasks:
          - {id: mean, role: coder, description: Compute the mean of numbers., inputs: [numbers], outputs: [mean]}
          - {id: say, role: coder, description: Say whether the mean is above 3., inputs: [mean], outputs: [answer], depends_on: [mean]}
  coder:
    - instructions: without seeing it  # the verifier's statement for the answer
      answer: {kind: text}
    - match: '(?s)task \\(say\\).*independent check of a teammate'
      answer: |
        ```python
        print(("yes: the mean %s is above 3: True" if mean > 3 else "no: %s, False") % mean)
        ```
    - match: '(?s)task \\(mean\\).*independent check of a teammate'
      answer: |
        ```python
        total = 0
        for x in numbers:
            total += x
        print(total / len(numbers))
        ```
    - match: 'task \\(say\\)'
      answer: |
        ```python
        import json
        mean = json.load(open("inputs.json"))["mean"]
        json.dump({"answer": f"the mean {mean} is above 3: {mean > 3}"}, open("outputs.json", "w"))
        ```
    - answer: |
        ```python
        import json
        numbers = json.load(open("inputs.json"))["numbers"]
        json.dump({"mean": sum(nums) / len(nums)}, open("outputs.json", "w"))
        ```
    - answer: |
        ```python
        import json
        values = json.load(open("inputs.json"))["numbers"]
        json.dump({"mean": sum(nums) / len(values)}, open("outputs.json", "w"))
        ```
    - answer: |
        ```python
        import json, statistics
        values = json.load(open("inputs.json"))["numbers"]
        json.dump({"mean": statistics.fmean(values)}, open("outputs.json", "w"))
        ```
"""


async def test_a_coder_fixing_its_program_is_not_a_loop(run_yaml: RunYaml) -> None:
    # two fix attempts fail alike (NameError: nums), the third works: the coder's own
    # bounded loop, not a loop of the run; the critic must not stop it (no replans left)
    outcome = await run_yaml(FIXED_ON_THE_THIRD_TRY)
    runs = payloads(outcome, "exec_result")
    # the mean: two fixes fail alike, the third works, a second program agrees; the answer:
    # two candidates, and the verifier's check over them
    assert [r.exit_code for r in runs] == [1, 1, 0, 0, 0, 0, 0]
    assert not [c for c in payloads(outcome, "critique") if c.verdict == "loop"]
    assert outcome.final is not None and outcome.final.status == "succeeded", outcome.final
    assert outcome.final.answer == "the mean 3.5 is above 3: True"
