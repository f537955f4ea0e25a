"""The coder's way with a goal whose answer is a function (a `Deliverable`): ask for the
function, run the examples its docstring states against it in the sandbox, show a failure
back (bounded fixes), then draw fresh drafts, and keep the first that passes.

The examples are the checks a person stated; the hidden tests of a benchmark never reach
this module. FINDINGS: at 1-3B, a fresh draft checked by the examples beats more repair.
"""

from __future__ import annotations

from autogen_core.models import LLMMessage, UserMessage

from bus.deliverable import Deliverable
from roles.examples import Example, check_program
from roles.execution import ExecutionResult

__all__ = [
    "FRESH",
    "SYSTEM",
    "check_code",
    "conversation",
    "failure_of",
    "fix_request",
    "function_request",
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


def conversation(system: LLMMessage, request: str) -> list[LLMMessage]:
    """A fresh conversation for one draft."""
    return [system, UserMessage(content=request, source="manager")]
