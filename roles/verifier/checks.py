"""The verifier's check program (`roles.verifier.spec`: made from what the verifier stated
from the goal alone), run once over several candidate answers and an empty one: a check that
passes no answer at all could catch nothing, so it counts for nothing."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from roles.execution import ExecutionResult
from roles.program import files_for, given_values, unwrapped, wrapped
from roles.verifier.spec import PROPERTIES, SYSTEM
from roles.verifier.values import numbers

__all__ = ["Judged", "Run", "VerifierCheck", "judge", "request"]

HARNESS = """
import json as _json
_results = []
try:
    exec(compile(_CHECK, "check.py", "exec"), globals())
    _broken = "" if callable(globals().get("check")) else "it defines no function check"
except BaseException as _e:
    _broken = f"{type(_e).__name__}: {_e}"
for _text, _numbers in _json.load(open("candidates.json")):
    if _broken:
        _results.append(["error", _broken[:300]])
        continue
    try:
        check(_text, _numbers)
        _results.append(["pass", ""])
    except AssertionError as _e:
        _results.append(["fail", (str(_e) or "an assertion failed")[:300]])
    except BaseException as _e:
        _results.append(["error", f"{type(_e).__name__}: {_e}"[:300]])
print(_json.dumps(_results))
"""

Run = Callable[[str, dict[str, bytes]], Awaitable[tuple[ExecutionResult, str]]]


@dataclass(frozen=True)
class VerifierCheck:
    """The check program the verifier wrote (empty ``code``: it wrote none, ``problem`` says
    why), the kind of value it stated every right answer gives ("" when it stated none) and
    how many values it said the goal asks (0 when it stated none)."""

    code: str
    problem: str = ""
    kind: str = ""
    values_asked: int = 0


@dataclass(frozen=True)
class Judged:
    """What the check said of each candidate (``pass``/``fail``/``error`` and the message),
    whether it is usable (it ran and fails an empty answer), and its execution's id."""

    outcomes: list[tuple[str, str]]
    usable: bool
    why_not: str
    exec_id: str


def request(
    goal: str,
    inputs: Mapping[str, JsonValue],
    documents: list[str],
    instructions: str | None = None,
    properties: bool = False,
) -> list[LLMMessage]:
    """The verifier's messages: the goal, its values and the documents' names, no answer
    (``instructions``: a prompt set's, in place of the built-in ones; ``properties``: ask for
    the defining properties the goal states, `PROPERTIES`)."""
    parts = [f"Goal: {goal}", given_values(inputs)]
    if documents:
        parts.append(f"Documents given with the goal: {', '.join(documents)}")
    parts.append("Write `check(answer, numbers)`.")
    return [
        SystemMessage(content=(instructions or SYSTEM) + (PROPERTIES if properties else "")),
        UserMessage(content="\n\n".join(parts), source="manager"),
    ]


async def judge(
    check: VerifierCheck, answers: list[str], inputs: Mapping[str, JsonValue], run: Run
) -> Judged:
    """Run ``check`` once over ``answers`` (and an empty answer, to see that it can fail)."""
    if not check.code:
        return Judged([("error", check.problem)] * len(answers), False, check.problem, "")
    rows = [[a, numbers(a)] for a in [*answers, ""]]
    files = files_for(inputs)
    files["candidates.json"] = json.dumps(rows).encode()
    program = f"_CHECK = {check.code!r}\n{HARNESS}"
    result, exec_id = await run(wrapped(program), files)
    result = unwrapped(result)
    try:
        raw = json.loads(result.stdout.strip().splitlines()[-1]) if result.ok else None
    except (ValueError, IndexError):
        raw = None
    if not isinstance(raw, list) or len(raw) != len(rows):
        why = f"the check program did not run: {(result.stderr or result.error or '')[-300:]}"
        return Judged([("error", why)] * len(answers), False, why, exec_id)
    outcomes = [(str(r[0]), str(r[1])) for r in raw]
    *given, empty = outcomes
    if all(o == "error" for o, _ in given):
        return Judged(given, False, f"the check failed to run: {given[0][1]}", exec_id)
    if empty[0] == "pass":
        return Judged(
            given, False, "the check passes an empty answer: it could catch nothing", exec_id
        )
    return Judged(given, True, "", exec_id)
