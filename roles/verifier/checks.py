"""The verifier's check program: asked of the model from the goal alone, then run once over
several candidate answers (and an empty one: a check that passes no answer at all could
catch nothing, so it counts for nothing)."""

from __future__ import annotations

import ast
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from roles.coder.cross_check import numbers
from roles.coder.protocol import files_for, given_values, unwrapped, wrapped
from roles.execution import ExecutionResult
from roles.structured import AnswerInvalid, code_from

__all__ = [
    "SYSTEM",
    "Judged",
    "Run",
    "VerifierCheck",
    "definitions",
    "judge",
    "request",
    "written",
]

SYSTEM = """You check a teammate's answer to a goal without seeing it. From the goal alone,
write a Python function `check(answer, numbers)` that raises AssertionError, with a short
message, when an answer to this goal must be wrong. `answer` is the answer's text;
`numbers` is the list of the numbers it states, in order, as floats. Check what every
right answer must satisfy, for example:
- bounds and kinds: a probability lies in [0, 1]; a count or a number of items is a whole
  number >= 0; a price is not negative; a name is asked, so the answer must contain words;
- inverse operations: undo what the goal asks and compare with the goal's values (square
  a root found, decode what was encoded, add back what was subtracted);
- defining properties: parts add up to the total they split; a sorted list is in order;
- the examples the goal itself states.
Never work out the expected answer and compare with it: a right answer computed another way
must pass. The goal's values are defined as variables before `check` runs. Keep it short.
For example, for "What fraction of the 40 marbles are red, if 10 are red?":
```python
def check(answer, numbers):
    assert numbers, "the answer states no number"
    assert 0 <= numbers[-1] <= 1 or "/" in answer, "a fraction of a whole lies in [0, 1]"
```
Answer with one ```python block that defines `check`."""

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

Ask = Callable[[list[LLMMessage]], Awaitable[str]]
Run = Callable[[str, dict[str, bytes]], Awaitable[tuple[ExecutionResult, str]]]


@dataclass(frozen=True)
class VerifierCheck:
    """The check program the verifier wrote (empty ``code``: it wrote none, ``problem`` says
    why)."""

    code: str
    problem: str = ""


@dataclass(frozen=True)
class Judged:
    """What the check said of each candidate (``pass``/``fail``/``error`` and the message),
    whether it is usable (it ran and fails an empty answer), and its execution's id."""

    outcomes: list[tuple[str, str]]
    usable: bool
    why_not: str
    exec_id: str


def request(goal: str, inputs: Mapping[str, JsonValue], documents: list[str]) -> list[LLMMessage]:
    """The verifier's messages: the goal, its values and the documents' names, no answer."""
    parts = [f"Goal: {goal}", given_values(inputs)]
    if documents:
        parts.append(f"Documents given with the goal: {', '.join(documents)}")
    parts.append("Write `check(answer, numbers)`.")
    return [
        SystemMessage(content=SYSTEM),
        UserMessage(content="\n\n".join(parts), source="manager"),
    ]


async def written(messages: list[LLMMessage], ask: Ask) -> VerifierCheck:
    """The check program from the model's reply (none when the reply holds no code)."""
    reply = await ask(messages)
    try:
        return VerifierCheck(definitions(code_from(reply)))
    except AnswerInvalid as exc:
        return VerifierCheck("", f"the verifier wrote no check program: {exc}")


KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


def definitions(code: str) -> str:
    """Only what the check program defines: imports, functions, classes, constants (a small
    model adds calls of its own, with made-up answers, that would fail before any candidate
    is checked)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    tree.body = [node for node in tree.body if isinstance(node, KEPT)]
    return ast.unparse(tree)


async def judge(
    check: VerifierCheck, answers: list[str], inputs: Mapping[str, JsonValue], run: Run
) -> Judged:
    """Run ``check`` once over ``answers`` (and an empty answer, to see that it can fail)."""
    if not check.code:
        return Judged([("error", check.problem)] * len(answers), False, check.problem, "")
    rows = [[a, [float(n) for n in _floats(a)]] for a in [*answers, ""]]
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


def _floats(text: str) -> list[float]:
    out = []
    for n in numbers(text):
        try:
            out.append(float(n))
        except ValueError:
            continue
    return out
