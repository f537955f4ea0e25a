"""Each grader kind passes a right answer and fails a wrong one; check programs run in the
real sandbox, where they cannot touch the host or the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from society.eval.graders import Submission, grade, numbers_in
from society.eval.suite import Choice, Contains, Equals, Number, PythonCheck, Regex


def test_numbers_in_reads_thousands_signs_and_decimals_but_not_date_dashes() -> None:
    assert numbers_in("1,234.5 and -3 and 2e3") == [1234.5, -3.0, 2000.0]
    assert numbers_in("from 2024-03-14: 319 days") == [2024.0, 3.0, 14.0, 319.0]
    assert numbers_in("no numbers here") == []


@pytest.mark.parametrize(
    ("grader", "right", "wrong"),
    [
        (Contains(text="Monday"), "It falls on a monday.", "It falls on a Sunday."),
        (Contains(text=["data", "model"]), "data 5, model 4", "data 5, the 4"),
        (Regex(pattern=r"\bsunday\b"), "That was a Sunday.", "That was a Sundayish day."),
        (Number(value=319), "There are 319 days.", "There are 318 days."),
        (Number(value=11.95, tolerance=0.005), "mean = 11.95", "mean = 11.9"),
        (Number(value=1e6, relative=0.01), "about 1,005,000", "about 1,020,000"),
        (Equals(value="Jumps Fox"), "  jumps   fox ", "fox jumps"),
        (Equals(value=42), "42", "42 apples"),
        (Choice(value="East", options=["North", "East"]), "East: 115.25", "North: 89"),
        (Choice(value="East", options=["North", "East"]), "East", "East, then North"),
        (Choice(value="no", options=["yes", "no"]), "No, it is not.", "yes"),
        (Number(value=7), "7 days", " ".join(str(i) for i in range(20))),
        (Number(value=7, max_numbers=3), "7 of 9 (78%)", "7 of 9 (78%), 2 left"),
    ],
)
async def test_a_text_grader_passes_the_right_answer_and_fails_a_wrong_one(
    grader: Contains | Regex | Number | Equals | Choice, right: str, wrong: str
) -> None:
    assert (await grade(grader, Submission(right), {}, None)).passed
    failed = await grade(grader, Submission(wrong), {}, None)
    assert not failed.passed and failed.detail


def test_a_choice_must_be_one_of_its_options() -> None:
    with pytest.raises(ValueError, match="not one of the options"):
        Choice(value="Sunday", options=["Monday", "Tuesday"])


async def test_a_list_of_numbers_is_no_answer_and_the_grade_says_so() -> None:
    listing = Submission(", ".join(str(i) for i in range(100)))
    verdict = await grade(Number(value=42), listing, {}, None)
    assert not verdict.passed and "states 100 numbers (at most 12)" in verdict.detail


async def test_a_grader_of_an_output_reads_that_output_and_names_a_missing_one() -> None:
    grader = Equals(value=42, output="product")
    assert (await grade(grader, Submission("", {"product": 42}), {}, None)).passed
    assert not (await grade(grader, Submission("42", {"product": 41}), {}, None)).passed
    missing = await grade(grader, Submission("42", {"other": 42}), {}, None)
    assert (
        not missing.passed and "no output 'product'" in missing.detail and "other" in missing.detail
    )


CHECK = PythonCheck(
    code=(
        "assert outputs['n'] == inputs['n'] * 2, outputs\n"
        "assert artifacts['table.csv'].startswith(b'a,b'), artifacts\n"
        "assert answer.strip() == 'done'\n"
    )
)


@pytest.mark.docker
async def test_a_python_check_sees_answer_outputs_inputs_and_artifacts(
    shared_sandbox: object,
) -> None:
    right = Submission("done\n", {"n": 8}, {"table.csv": b"a,b\n1,2\n"})
    passed = await grade(CHECK, right, {"n": 4}, shared_sandbox)  # type: ignore[arg-type]
    assert passed.passed, passed.detail
    wrong = Submission("done\n", {"n": 9}, {"table.csv": b"a,b\n1,2\n"})
    failed = await grade(CHECK, wrong, {"n": 4}, shared_sandbox)  # type: ignore[arg-type]
    assert not failed.passed and "AssertionError" in failed.detail and "9" in failed.detail


@pytest.mark.docker
async def test_a_python_check_cannot_write_on_the_host_or_reach_the_network(
    shared_sandbox: object, tmp_path: Path
) -> None:
    marker = tmp_path / "written-by-the-check"
    hostile = PythonCheck(
        code=(
            "import socket, pathlib\n"
            f"pathlib.Path({str(marker)!r}).parent.mkdir(parents=True, exist_ok=True)\n"
            f"pathlib.Path({str(marker)!r}).write_text('x')\n"
            "socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
            "print('reached the network')\n"
        )
    )
    verdict = await grade(hostile, Submission("x"), {}, shared_sandbox)  # type: ignore[arg-type]
    assert not verdict.passed
    assert "OSError" in verdict.detail or "unreachable" in verdict.detail.lower(), verdict.detail
    assert not marker.exists()  # it wrote inside its container, never here


@pytest.mark.docker
async def test_a_check_that_runs_forever_fails_with_its_timeout(shared_sandbox: object) -> None:
    slow = PythonCheck(code="while True: pass\n", timeout_s=2)
    verdict = await grade(slow, Submission("x"), {}, shared_sandbox)  # type: ignore[arg-type]
    assert not verdict.passed and "timed out" in verdict.detail
