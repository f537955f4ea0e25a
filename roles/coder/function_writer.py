"""The coder's way with a goal whose answer is a function (a `Deliverable`): ask for the
function, run the examples its docstring states against it in the sandbox, show a failure
back (bounded fixes), then draw fresh drafts. With the verifier's tests (written from the
docstring alone, `roles.verifier.function_tests`), drafts that pass the examples are drawn until
one passes every test, two agree, or ``most`` are in, and the kept one is chosen by the tests
(dual agreement); without them, the first draft that passes is kept.

The examples are the checks a person stated; the hidden tests of a benchmark never reach
this module. FINDINGS: at 1-3B, a fresh draft checked by the examples beats more repair.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from autogen_core.models import AssistantMessage, LLMMessage, UserMessage

from bus.deliverable import Deliverable
from bus.verdicts import CheckVerdict
from roles.coder.program_checks import same_program
from roles.errors import TaskFailed
from roles.examples import Example, check_program, passed_of
from roles.execution import ExecutionResult
from roles.structured import AnswerInvalid, code_from
from roles.verifier.function_tests import Tried, behaviour_of, behaviour_program, choose

__all__ = [
    "FRESH",
    "SYSTEM",
    "Written",
    "check_code",
    "failure_of",
    "fix_request",
    "function_request",
    "write",
]

SYSTEM = """You are the coder of a team of AI agents. You complete one Python function: its
signature as given and its whole body, with the imports it needs at the top. Answer with
the code in one ```python fenced block: the function and any helpers it calls, and nothing
that runs on import (no example calls, no prints, no tests, no input())."""

FRESH = (
    "Solve it afresh, as an independent check of a teammate's attempt that failed: read "
    "each example in the docstring and make sure your function returns exactly that value.",
    "Work through the docstring's examples by hand first, in comments inside the function, "
    "then write the body.",
    "Write it a different way from the most obvious one, minding the edge cases (empty "
    "input, zero, negative numbers, ties, repeated values).",
)
"""What each fresh draft is told (its own words, so it differs even at temperature 0)."""

_DEFINES = """\
PROMPT = {stub!r}
CODE = {code!r}
ENTRY = {entry!r}
ns = {{}}
exec(CODE if ("def " + ENTRY) in CODE else PROMPT + CODE, ns)
if not callable(ns.get(ENTRY)):
    raise SystemExit(f"the code defines no function named {{ENTRY}}")
print("defines " + ENTRY)
"""


def function_request(deliverable: Deliverable, notes: list[str], fresh: str | None) -> str:
    """The user message asking for the function."""
    parts = [
        "Complete this function so that it does what its docstring says:\n"
        f"```python\n{deliverable.stub.rstrip()}\n```"
        if deliverable.stub
        else f"Write the Python function `{deliverable.function}` the goal asks for."
    ]
    if notes:
        parts.append("Keep in mind:\n- " + "\n- ".join(notes))
    if fresh:
        parts.append(fresh)
    return "\n\n".join(parts)


def check_code(deliverable: Deliverable, code: str, examples: list[Example]) -> str:
    """The program that checks ``code``: it runs the examples, or, with none, checks that
    the function is defined; it exits non-zero with the first failure."""
    if examples:
        return check_program(deliverable.stub, code, deliverable.function, examples)
    return _DEFINES.format(stub=deliverable.stub, code=code, entry=deliverable.function)


def failure_of(run: ExecutionResult, examples: list[Example]) -> str:
    """What went wrong with a check run, for the model ("" when it passed)."""
    if run.ok:
        return ""
    if run.error:
        return f"the sandbox failed: {run.error}"
    if run.timed_out:
        return "checking it took too long: the function loops or is far too slow"
    lines = [ln for ln in (run.stderr or "").strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else f"exit code {run.exit_code}"
    what = "a docstring example failed" if examples else "the code does not run"
    return f"{what}: {last}"


def fix_request(failure: str) -> UserMessage:
    """The feedback after a failed check."""
    return UserMessage(
        content=f"{failure}\nFix the function and answer with the whole corrected code.",
        source="sandbox",
    )


Ask = Callable[[list[LLMMessage]], Awaitable[str]]
"""The model's answer to a conversation."""
Run = Callable[[str], Awaitable[tuple[ExecutionResult, str]]]
"""A program run in the sandbox -> its result and the id of its result message."""
Tests = Callable[[], Awaitable[list[Example]]]
"""The verifier's tests (asked once, when the first draft passes the examples)."""


@dataclass
class Written:
    """The function kept, how it was checked, and what it cost."""

    code: str
    exec_id: str
    tries: int
    verdicts: list[CheckVerdict] = field(default_factory=list)
    note: str = ""
    """Why it is not verified ("" when a check written apart from it passed, none failed)."""


@dataclass
class _Drafts:
    """What the drafts so far gave: the best by examples passed, and those that passed."""

    best: tuple[int, str, str, str] | None = None  # examples passed, code, failure, exec id
    tried: list[Tried] = field(default_factory=list)
    tests: list[Example] | None = None


async def write(
    deliverable: Deliverable,
    examples: list[Example],
    first: list[LLMMessage],
    ask: Ask,
    run: Run,
    imported: Callable[[str], str],
    *,
    attempts: int,
    fresh: int,
    tests: Tests | None,
    most: int,
) -> Written:
    """Drafts, each run against the docstring's ``examples`` (the first with ``attempts``
    fixes, then up to ``fresh`` fresh ones); with ``tests``, the passing drafts are run on
    the verifier's tests and chosen among (`roles.verifier.function_tests.choose`)."""
    system, request = first[0], first[1:]
    state = _Drafts()
    failure = ""
    tries = 0
    seen: dict[str, str] = {}  # code checked, and how it failed ("" passed)
    for n, note in enumerate([None, *FRESH[:fresh]]):
        convo = [system, *request] if n == 0 else [system, _with(request, note)]
        passed_now: tuple[str, str] | None = None
        for attempt in range(attempts if n == 0 else 1):
            if attempt:
                convo.append(fix_request(failure))
            text = await ask(convo)
            convo.append(AssistantMessage(content=text, source="coder"))
            try:
                code = imported(code_from(text))
            except AnswerInvalid as exc:
                failure = str(exc)
                continue
            if code.strip() in seen:  # the same code again: it would fail the same way,
                failure = seen[code.strip()]  # and more fixes will not change it
                break
            result, exec_id = await run(check_code(deliverable, code, examples))
            tries += 1
            failure = failure_of(result, examples)
            seen[code.strip()] = failure
            passed = len(examples) if not failure else passed_of(failure)
            if state.best is None or passed > state.best[0]:  # a wrong docstring example
                state.best = (passed, code, failure, exec_id)  # must not cost a better draft
            if not failure:
                passed_now = (code, exec_id)
                break
        if passed_now is not None and await _enough(
            state, deliverable, passed_now, run, tests, most
        ):
            break
    return _kept(state, examples, failure, tries)


async def _enough(
    state: _Drafts,
    deliverable: Deliverable,
    passed: tuple[str, str],
    run: Run,
    tests: Tests | None,
    most: int,
) -> bool:
    """Whether to stop drawing after a draft passed the examples: with no tests, yes; else
    once it passes every test, or it returns what an earlier draft did, or ``most`` passed,
    or it is a tried program again (at temperature 0 more drafts would repeat it too)."""
    if tests is None:
        return True
    if state.tests is None:
        state.tests = await tests()
    if not state.tests:
        return True
    code, exec_id = passed
    if any(same_program(code, t.code) for t in state.tried):
        return True
    result, tests_id = await run(behaviour_program(deliverable, code, state.tests))
    behaviour = behaviour_of(result, state.tests)
    if behaviour is None:  # it does not run through the tests: not a draft to choose
        return False
    agrees = any(t.behaviour.returned == behaviour.returned for t in state.tried)
    state.tried.append(Tried(code, exec_id, behaviour, tests_id))
    return all(behaviour.passed) or agrees or len(state.tried) >= most


def _kept(state: _Drafts, examples: list[Example], failure: str, tries: int) -> Written:
    """The draft kept, with one verdict per check of it."""
    if state.tried:
        return _chosen(state, examples, tries)
    if state.best is None:
        msg = f"no answer held the function's code: {failure}"
        raise TaskFailed(msg)
    _, code, failure, exec_id = state.best
    if failure or not examples:
        note = failure or "its docstring states no examples to run (the function is defined)"
        missed = CheckVerdict(
            kind="examples", what=note, candidate=exec_id, passed=False, independent=True
        )
        return Written(code, exec_id, tries, [missed], note)
    return Written(code, exec_id, tries, [_examples_held(examples, exec_id)])


def _examples_held(examples: list[Example], exec_id: str) -> CheckVerdict:
    what = f"its code passed the {len(examples)} examples its docstring states"
    return CheckVerdict(
        kind="examples",
        what=what,
        candidate=exec_id,
        passed=True,
        independent=True,
        evidence=[exec_id],
    )


def _chosen(state: _Drafts, examples: list[Example], tries: int) -> Written:
    choice = choose(state.tried)
    kept = choice.kept
    verdicts = [_examples_held(examples, kept.exec_id)] if examples else []
    total = len(state.tests or [])
    counted = len(choice.counted)
    aside = (
        f" ({total - counted} more set aside: no draft passed them, and two returned the same)"
        if counted < total
        else ""
    )
    if counted:
        what = (
            f"it passed {choice.passed} of the {counted} tests the verifier wrote from the "
            f"docstring alone{aside}"
        )
        verdicts.append(
            CheckVerdict(
                kind="property",
                what=what,
                candidate=kept.exec_id,
                passed=choice.passed == counted,
                independent=True,
                evidence=[kept.tests_id],
            )
        )
    if choice.agreeing > 1:
        what = f"{choice.agreeing} drafts written apart returned the same on every test"
        verdicts.append(
            CheckVerdict(
                kind="agreement",
                what=what,
                candidate=kept.exec_id,
                passed=True,
                independent=False,
                evidence=[t.tests_id for t in state.tried],
            )
        )
    failed = [v.what for v in verdicts if not v.passed]
    held = any(v.passed and v.independent for v in verdicts)
    none = "its docstring states no examples, and every test the verifier wrote was set aside"
    if not failed and not held:
        verdicts.append(
            CheckVerdict(
                kind="examples",
                what=none,
                candidate=kept.exec_id,
                passed=False,
                independent=True,
            )
        )
    note = failed[0] if failed else ("" if held else none)
    return Written(kept.code, kept.exec_id, tries, verdicts, note)


def _with(request: Sequence[LLMMessage], note: str | None) -> LLMMessage:
    """The request, with a fresh draft's own words added."""
    (message,) = request
    assert isinstance(message, UserMessage)
    text = message.content if isinstance(message.content, str) else ""
    return UserMessage(content=f"{text}\n\n{note}" if note else text, source=message.source)
