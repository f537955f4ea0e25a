"""The coder's solve loop on a fake code runner and scripted replies (no Docker, no NATS):
a failed run is shown back with its hints and the fix is kept; the same program again is
asked afresh, not run; a result written in is sent back; a check of the one signature
decides; the attempts are bounded."""

from __future__ import annotations

import json

import pytest
from autogen_core.models import LLMMessage, SystemMessage, UserMessage

from bus.payloads import TaskSpec
from roles.coder.checks import CHECKS, Attempt, checks_for
from roles.coder.solve import Program, solve
from roles.errors import TaskFailed
from roles.execution import ExecutionResult
from roles.program import LINE

GCD_BROKEN = "print(gcd(12, 18))"
GCD_FIXED = "from math import gcd\nprint(gcd(12, 18))"
LITERAL = 'answer = "There are 7841 primes"\nprint(answer)'


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


class Fakes:
    """Replies in order; runs looked up by code (a NameError unless a result is given)."""

    def __init__(self, replies: list[str], runs: dict[str, ExecutionResult]) -> None:
        self.replies = list(replies)
        self.runs = runs
        self.asked: list[list[LLMMessage]] = []
        self.ran: list[tuple[str, dict[str, bytes]]] = []

    async def ask(self, convo: list[LLMMessage]) -> str:
        self.asked.append(list(convo))
        return self.replies.pop(0)

    async def execute(self, code: str, files: dict[str, bytes]) -> tuple[ExecutionResult, str]:
        assert code.startswith(LINE)  # the runner's prelude comes first
        code = code.removeprefix(LINE)
        self.ran.append((code.strip(), files))
        run = self.runs.get(code.strip(), ExecutionResult(exit_code=1, stderr="SyntaxError: bad"))
        return run, f"exec-{len(self.ran)}"


def convo() -> list[LLMMessage]:
    return [
        SystemMessage(content="You write programs."),
        UserMessage(content="Task: gcd", source="manager"),
    ]


def printed(text: str) -> ExecutionResult:
    return ExecutionResult(exit_code=0, stdout=text)


NAME_ERROR = ExecutionResult(
    exit_code=1, stderr="Traceback...\nNameError: name 'gcd' is not defined"
)


async def test_a_failed_run_is_shown_back_with_its_hint_and_the_fix_is_kept() -> None:
    fakes = Fakes(
        [fenced(GCD_BROKEN), fenced(GCD_FIXED)], {GCD_BROKEN: NAME_ERROR, GCD_FIXED: printed("6")}
    )
    solved = await solve(convo(), Program(["answer"], {"a": 12}), fakes.ask, fakes.execute, 3)
    assert solved.outputs == {"answer": 6} and solved.attempts == 2 and solved.exec_id == "exec-2"
    shown = str(fakes.asked[1][-1].content)
    assert "exited with code 1" in shown and "from math import gcd" in shown
    assert json.loads(fakes.ran[0][1]["inputs.json"]) == {"a": 12}


async def test_the_same_program_again_is_asked_afresh_and_not_run_twice() -> None:
    replies = [fenced(GCD_BROKEN), fenced(GCD_BROKEN), fenced(GCD_FIXED)]
    fakes = Fakes(replies, {GCD_BROKEN: NAME_ERROR, GCD_FIXED: printed("6")})
    solved = await solve(convo(), Program(["answer"]), fakes.ask, fakes.execute, 3)
    assert [code for code, _ in fakes.ran] == [GCD_BROKEN, GCD_FIXED]
    afresh = fakes.asked[2]
    assert len(afresh) == 2 and "Write a new program, another way" in str(afresh[1].content)
    assert solved.attempts == 3


async def test_a_result_written_in_as_a_literal_is_sent_back() -> None:
    replies = [fenced(LITERAL), fenced(GCD_FIXED)]
    fakes = Fakes(replies, {LITERAL: printed("There are 7841 primes"), GCD_FIXED: printed("6")})
    await solve(convo(), Program(["answer"]), fakes.ask, fakes.execute, 3)
    assert "writes it in as a literal" in str(fakes.asked[1][-1].content)


@pytest.mark.parametrize(
    "printed_text",
    [
        "They occur <class 'itertools.count'> times each.",
        "<generator object <genexpr> at 0x7f3a2c1e5b10>",
        "The mean is nan",
        "None",
    ],
)
async def test_an_output_that_is_no_value_is_sent_back_and_the_fix_is_kept(
    printed_text: str,
) -> None:
    broken = "print(x)"
    replies = [fenced(broken), fenced(GCD_FIXED)]
    fakes = Fakes(replies, {broken: printed(printed_text), GCD_FIXED: printed("6")})
    solved = await solve(convo(), Program(["answer"]), fakes.ask, fakes.execute, 3)
    assert solved.outputs == {"answer": 6} and solved.attempts == 2
    assert "which is not a value" in str(fakes.asked[1][-1].content)


async def test_a_check_of_the_one_signature_decides_and_the_attempts_are_bounded() -> None:
    def even(a: Attempt) -> str:
        return "" if a.run.stdout.strip() in {"6", "8"} else "the answer must be even"

    runs = {"print(7)": printed("7"), "print(9)": printed("9")}
    fakes = Fakes([fenced("print(7)"), fenced("print(9)")], runs)
    program = Program(["answer"], checks=(*CHECKS, even))
    with pytest.raises(TaskFailed, match="after 2 attempts: the answer must be even"):
        await solve(convo(), program, fakes.ask, fakes.execute, 2)
    assert "the answer must be even" in str(fakes.asked[1][-1].content)


async def test_a_forgotten_import_is_added_before_the_run_by_prepare() -> None:
    fakes = Fakes([fenced(GCD_BROKEN)], {GCD_FIXED: printed("6")})

    def prepare(code: str) -> str:
        return "from math import gcd\n" + code

    solved = await solve(convo(), Program(["answer"]), fakes.ask, fakes.execute, 1, prepare)
    assert [code for code, _ in fakes.ran] == [GCD_FIXED] and solved.attempts == 1


async def test_a_step_that_prints_several_values_for_its_one_output_is_sent_back() -> None:
    """A live 1.5B count task printed the count, the estimate and their ratio; the next
    task could not read its count. A plan's step prints its one value; the answer may be
    several lines, and so may the goal check."""
    sieve = "n = sum(all(k % d for d in range(2, k)) for k in range(2, 10000))\n"
    three = sieve + 'print(n)\nprint(n / 1.132)\nprint(f"Ratio: {n / (n / 1.132)}")'
    one = sieve + "print(n)"
    runs = {three: printed("1229\n1085.7\nRatio: 1.13\n"), one: printed("1229\n")}
    count = TaskSpec(id="count", role="coder", description="count the primes", outputs=["n"])
    fakes = Fakes([fenced(three), fenced(one)], runs)
    program = Program(["n"], checks=checks_for(count))
    solved = await solve(convo(), program, fakes.ask, fakes.execute, 3)
    assert solved.outputs == {"n": 1229} and solved.attempts == 2
    shown = str(fakes.asked[1][-1].content)
    assert "one output, 'n'" in shown and "printed 3 lines of values" in shown
    for task in (
        count.model_copy(update={"outputs": ["answer"]}),
        count.model_copy(update={"purpose": "goal_check"}),
    ):
        fakes = Fakes([fenced(three)], runs)
        program = Program(task.outputs, checks=checks_for(task))
        solved = await solve(convo(), program, fakes.ask, fakes.execute, 3)
        assert solved.attempts == 1 and solved.outputs == {
            task.outputs[0]: "1229\n1085.7\nRatio: 1.13"
        }
    # a list as JSON over several lines is one value
    listed = sieve + 'print(f"[{n - 1227},\\n{n - 1226}]")'
    fakes = Fakes([fenced(listed)], {listed: printed("[2,\n3]\n")})
    solved = await solve(convo(), program_for(count), fakes.ask, fakes.execute, 3)
    assert solved.outputs == {"n": [2, 3]}


def program_for(task: TaskSpec) -> Program:
    return Program(task.outputs, checks=checks_for(task))
