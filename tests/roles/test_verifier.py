"""The verifier's check in the real sandbox: it fails a wrong answer and passes a right one;
one that passes an empty answer, or does not run, counts for nothing."""

from __future__ import annotations

from typing import cast

import pytest

from roles.execution import CodeRunner, ExecutionResult
from roles.verifier.checks import VerifierCheck, definitions, judge, request

pytestmark = [pytest.mark.docker, pytest.mark.timeout(120)]

ROOT = """
def check(answer, numbers):
    assert numbers, "no number"
    assert abs(numbers[0] ** 2 - n) < 1e-6, "its square is not n"
"""


def runner(sandbox: object):  # type: ignore[no-untyped-def]
    code_runner = cast(CodeRunner, sandbox)

    async def run(code: str, files: dict[str, bytes]) -> tuple[ExecutionResult, str]:
        return await code_runner.execute(code, files, 20), "exec-1"

    return run


async def test_an_inverse_operation_fails_the_wrong_root(shared_sandbox: object) -> None:
    judged = await judge(
        VerifierCheck(ROOT), ["The root is 12.", "It is 13"], {"n": 144}, runner(shared_sandbox)
    )
    assert judged.usable
    assert judged.outcomes[0] == ("pass", "")
    assert judged.outcomes[1] == ("fail", "its square is not n")


async def test_a_check_that_passes_an_empty_answer_counts_for_nothing(
    shared_sandbox: object,
) -> None:
    vacuous = VerifierCheck("def check(answer, numbers):\n    assert isinstance(answer, str)\n")
    judged = await judge(vacuous, ["12"], {}, runner(shared_sandbox))
    assert not judged.usable and "empty answer" in judged.why_not


async def test_a_check_that_does_not_run_counts_for_nothing(shared_sandbox: object) -> None:
    broken = VerifierCheck("def check(answer, numbers):\n    return undefined_name\n")
    judged = await judge(broken, ["12", "13"], {}, runner(shared_sandbox))
    assert not judged.usable and "NameError" in judged.why_not


def test_the_verifier_sees_the_goal_and_values_and_no_answer() -> None:
    messages = request("What is the square root of n?", {"n": 144}, ["table.csv"])
    text = "\n".join(str(m.content) for m in messages)
    assert "n = 144" in text and "table.csv" in text and "check(answer, numbers)" in text


def test_only_the_check_programs_definitions_are_kept() -> None:
    code = 'import math\nLIMIT = 3\ndef check(answer, numbers):\n    assert numbers\ncheck("12", [13.0])\nprint("ok")\n'
    kept = definitions(code)
    assert "def check" in kept and "import math" in kept and "LIMIT = 3" in kept
    assert 'check("12"' not in kept and "print" not in kept
