"""The verifier's tests of a function and the choice among drafts by them (no model, no
sandbox: the check programs run in a local Python): a draft that passes the docstring's
examples but not the tests gives way to one that passes them; drafts that agree outvote a
wrong expected value, which is then set aside; drafts that disagree, or one alone, set
nothing aside; the tests
are asked once, and only once a draft passed the examples."""

from __future__ import annotations

import asyncio
import sys
from asyncio.subprocess import PIPE

from autogen_core.models import LLMMessage, SystemMessage, UserMessage

from bus.deliverable import Deliverable
from roles.coder.function_writer import Written, write
from roles.examples import Example, examples_in
from roles.execution import ExecutionResult
from roles.verifier import function_tests
from roles.verifier.function_tests import Behaviour, Tried, choose

STUB = '''def add_one(x):
    """One more than x.
    >>> add_one(1)
    2
    """
'''
DELIVERABLE = Deliverable(function="add_one", stub=STUB)
EXAMPLES = examples_in(STUB, "add_one")

RIGHT = "def add_one(x):\n    return x + 1\n"
RIGHT_TOO = "def add_one(x):\n    total = sum([x, 1])\n    return total\n"
CLAMPED = "def add_one(x):\n    return x + 1 if x >= 0 else 0\n"
WRONG = "def add_one(x):\n    return x + 2\n"


def fenced(code: str) -> str:
    return f"```python\n{code}```"


class Model:
    """Drafts in order; the verifier's answer when it is asked for tests."""

    def __init__(self, *drafts: str) -> None:
        self.drafts = list(drafts)
        self.asked: list[str] = []

    async def __call__(self, messages: list[LLMMessage]) -> str:
        last = messages[-1]
        assert isinstance(last, UserMessage) and isinstance(last.content, str)
        self.asked.append(last.content)
        return fenced(self.drafts.pop(0))


async def run_locally(code: str) -> tuple[ExecutionResult, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=PIPE, stderr=PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    result = ExecutionResult(exit_code=proc.returncode, stdout=out.decode(), stderr=err.decode())
    return result, f"exec-{abs(hash(code)) % 10_000}"


def verifier(*tests: Example) -> tuple[list[int], object]:
    asked: list[int] = []

    async def tests_() -> list[Example]:
        asked.append(1)
        return list(tests)

    return asked, tests_


async def written(model: Model, tests: object, most: int = 3) -> Written:
    first: list[LLMMessage] = [
        SystemMessage(content="write it"),
        UserMessage(content="Complete add_one.", source="manager"),
    ]
    return await write(
        DELIVERABLE,
        EXAMPLES,
        first,
        model,
        run_locally,
        lambda code: code,
        attempts=2,
        fresh=3,
        tests=tests,  # type: ignore[arg-type]
        most=most,
    )


def test_the_verifiers_asserts_are_read_as_tests_without_the_docstrings_examples() -> None:
    answer = fenced(
        "assert add_one(1) == 2\n"  # the docstring's own example
        "assert add_one(5) == 6\n"
        "assert add_one(-1) == 0  # below zero\n"
        "assert add_one(y) == 3\n"  # a name it does not define
        "assert add_one(7) > 1\n"  # not an expected value
        "print(add_one(2))\n"
    )
    assert function_tests.tests_in(answer, "add_one", EXAMPLES) == [
        ("add_one(5)", "6"),
        ("add_one(-1)", "0"),
    ]


def test_drafts_that_agree_outvote_a_lone_draft_and_a_test_all_fail_is_set_aside() -> None:
    def tried(name: str, returned: tuple[str, ...], passed: tuple[bool, ...]) -> Tried:
        return Tried(name, f"exec-{name}", Behaviour(returned, passed))

    lone = tried("lone", ("6", "0", "9"), (True, False, False))
    pair = [tried(n, ("6", "-1", "8"), (True, True, False)) for n in ("a", "b")]
    choice = choose([lone, *pair])
    assert choice.kept.code == "a" and choice.agreeing == 2
    assert choice.counted == (0, 1)  # the third test every draft failed
    assert choice.passed == 2
    alone = choose([lone])
    assert alone.counted == (0, 1, 2) and alone.passed == 1  # one draft sets none aside
    other = tried("other", ("6", "5", "7"), (True, False, False))
    apart = choose([lone, other])  # both fail the third test, but return different values
    assert apart.counted == (0, 1, 2)


async def test_a_draft_failing_the_verifiers_test_gives_way_to_one_that_passes() -> None:
    model = Model(CLAMPED, RIGHT)
    asked, tests = verifier(("add_one(5)", "6"), ("add_one(-3)", "-2"))
    kept = await written(model, tests)
    assert kept.code == RIGHT and not kept.note
    assert asked == [1]  # asked once, after the first draft passed the examples
    assert "Solve it afresh" in model.asked[1]  # a fresh draft, not a repair
    assert [(v.kind, v.passed) for v in kept.verdicts] == [("examples", True), ("property", True)]


async def test_two_agreeing_drafts_set_a_wrong_expected_value_aside() -> None:
    model = Model(RIGHT, RIGHT_TOO, WRONG)
    _, tests = verifier(("add_one(5)", "7"), ("add_one(2)", "3"))
    kept = await written(model, tests)
    assert kept.code == RIGHT and not kept.note
    assert len(model.asked) == 2  # two drafts agreed: no third
    (prop,) = [v for v in kept.verdicts if v.kind == "property"]
    assert prop.passed and "1 of the 1 tests" in prop.what and "1 more set aside" in prop.what
    (agreed,) = [v for v in kept.verdicts if v.kind == "agreement"]
    assert agreed.passed and not agreed.independent


async def test_a_lone_draft_failing_a_test_is_not_verified() -> None:
    # the later drafts fail the docstring's example, so only the first ran the tests
    model = Model(CLAMPED, WRONG, WRONG + "\n", WRONG + "\n\n")
    _, tests = verifier(
        ("add_one(-3)", "-2"),
    )
    kept = await written(model, tests)
    assert kept.code == CLAMPED
    (prop,) = [v for v in kept.verdicts if v.kind == "property"]
    assert not prop.passed and kept.note == prop.what


async def test_with_no_draft_passing_the_examples_the_tests_are_never_asked() -> None:
    model = Model(WRONG, WRONG + "\n", WRONG + "\n\n", WRONG + "\n\n\n", WRONG + "#")
    asked, tests = verifier(("add_one(5)", "6"))
    kept = await written(model, tests)
    assert asked == []
    assert kept.note and [(v.kind, v.passed) for v in kept.verdicts] == [("examples", False)]


async def test_a_tried_program_drawn_again_ends_the_drawing() -> None:
    model = Model(CLAMPED, CLAMPED.replace("return", "return  "), RIGHT)
    _, tests = verifier(("add_one(-3)", "-2"))
    kept = await written(model, tests)
    assert len(model.asked) == 2 and kept.code == CLAMPED  # the right third never drawn
    assert kept.note  # one program, failing the test: not verified
