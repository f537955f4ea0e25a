"""The verifier's tests of a function, written from its signature and docstring alone before
any draft exists, and the choice among drafts by them (CodeT's dual agreement): drafts that
pass the docstring's examples are run on the tests' inputs, grouped by what they return, and
the group kept is the one whose size times the tests it passes is largest.

Why inputs and behaviour, not only the expected values: on HumanEval problems outside the
40 measured (1.5B), 47 of 57 expected values the verifier wrote were right, so a right
function often fails one test; drafts drawn apart that return the same on every input are
evidence a wrong expected value is not. A test no draft passes, on which two drafts
return the same, is set aside.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bus.deliverable import Deliverable
from roles.examples import Example, usable_example
from roles.execution import ExecutionResult

__all__ = [
    "MOST",
    "SYSTEM",
    "Behaviour",
    "Choice",
    "Tried",
    "behaviour_of",
    "behaviour_program",
    "choose",
    "request",
    "tests_in",
]

MOST = 8
"""Tests kept from the verifier's answer (the first ones)."""

SYSTEM = """You test a teammate's Python function without seeing it: from its signature and
docstring alone, before it is written."""


def request(deliverable: Deliverable, examples: Sequence[Example]) -> str:
    """The user message asking for the tests."""
    entry = deliverable.function
    shown = "" if not examples else " other than the docstring's examples"
    return (
        f"```python\n{deliverable.stub.rstrip()}\n```\n\n"
        f"Write 6 tests of `{entry}` as lines `assert {entry}(...) == ...`, on inputs{shown}: "
        "small, ordinary ones first, then edge cases (empty input, zero, one element, ties). "
        "Work out each expected value carefully from the docstring. Answer with the lines in "
        "one ```python block and nothing else."
    )


_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


def tests_in(text: str, entry: str, examples: Sequence[Example]) -> list[Example]:
    """The tests ``assert entry(...) == value`` in the verifier's answer, as (call, value),
    without the docstring's own examples and any that is not a usable example."""
    fence = _FENCE.search(text)
    body = fence.group(1) if fence else text
    found: list[Example] = []
    for line in body.splitlines():
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
            continue
        test = tree.body[0].test
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.Is)
        ):
            continue
        call, want = ast.unparse(test.left), ast.unparse(test.comparators[0])
        if not usable_example(call, want, entry):
            continue
        if (call, want) not in examples and (call, want) not in found:
            found.append((call, want))
    return found[:MOST]


_RUN = """\
import json, math, signal
PROMPT = {prompt!r}
CODE = {code!r}
ENTRY = {entry!r}
TESTS = {tests!r}
ns = {{}}
exec(CODE if ("def " + ENTRY) in CODE else PROMPT + CODE, ns)

def alarm(signum, frame):
    raise TimeoutError("took over 2 s")

signal.signal(signal.SIGALRM, alarm)
seen = []
for call, expected in TESTS:
    try:
        signal.alarm(2)
        got = eval(call, ns)
        signal.alarm(0)
        shown = repr(got)[:300]
    except BaseException as exc:
        signal.alarm(0)
        seen.append(["raised " + type(exc).__name__, False])
        continue
    try:
        want = eval(expected, dict(ns))
        same = got == want or (
            isinstance(got, float) and isinstance(want, (int, float))
            and math.isclose(got, want, rel_tol=1e-6)
        )
    except BaseException:
        same = False
    seen.append([shown, bool(same)])
print(json.dumps(seen))
"""


def behaviour_program(deliverable: Deliverable, code: str, tests: Sequence[Example]) -> str:
    """A program that defines the function from ``code``, calls it on every test's input (2 s
    each) and prints, per test, what it returned (or raised) and whether that is the value
    the test expects."""
    return _RUN.format(
        prompt=deliverable.stub, code=code, entry=deliverable.function, tests=list(tests)
    )


@dataclass(frozen=True)
class Behaviour:
    """What a draft returned on each test's input, and which tests it passed."""

    returned: tuple[str, ...]
    passed: tuple[bool, ...]


def behaviour_of(run: ExecutionResult, tests: Sequence[Example]) -> Behaviour | None:
    """The behaviour a `behaviour_program` run printed (None: it did not run through)."""
    if not run.ok:
        return None
    try:
        seen = json.loads((run.stdout or "").strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return None
    if not isinstance(seen, list) or len(seen) != len(tests):
        return None
    return Behaviour(tuple(str(s[0]) for s in seen), tuple(bool(s[1]) for s in seen))


@dataclass(frozen=True)
class Tried:
    """A draft that passed the docstring's examples, and its behaviour on the tests."""

    code: str
    exec_id: str
    """The id of its examples run's result."""
    behaviour: Behaviour
    tests_id: str = ""
    """The id of its tests run's result."""


@dataclass(frozen=True)
class Choice:
    """The draft kept, the drafts that returned the same, and the tests that count."""

    kept: Tried
    agreeing: int
    """How many drafts (the kept one too) returned the same on every test."""
    counted: tuple[int, ...]
    """The tests that count (not failed by every draft), by index."""

    @property
    def passed(self) -> int:
        return sum(1 for i in self.counted if self.kept.behaviour.passed[i])


def choose(tried: Sequence[Tried]) -> Choice:
    """The group of drafts with the largest size × (1 + tests passed); the earliest on a tie.
    A test no draft passes, on which two drafts written apart return the same, is set aside
    (a wrong expected value, likely); drafts that all disagree, or one alone, set none aside."""
    assert tried, "no draft to choose from"
    width = len(tried[0].behaviour.passed)

    def aside(i: int) -> bool:
        returned = [t.behaviour.returned[i] for t in tried]
        failed = not any(t.behaviour.passed[i] for t in tried)
        return failed and len(set(returned)) < len(returned)

    counted = tuple(i for i in range(width) if not aside(i))
    groups: dict[tuple[str, ...], list[Tried]] = {}
    for t in tried:
        groups.setdefault(t.behaviour.returned, []).append(t)

    def score(group: list[Tried]) -> int:
        passing = sum(1 for i in counted if group[0].behaviour.passed[i])
        return len(group) * (1 + passing)

    best = max(groups.values(), key=score)  # max keeps the first of equal scores
    return Choice(best[0], len(best), counted)
