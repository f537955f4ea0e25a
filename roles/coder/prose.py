"""The prose view: the task worked out in words and arithmetic, no code, its final value read
from its last ``Answer:`` line. It fails otherwise than a program does — it misreads less
and miscounts more — so where the two agree the answer is likely right, and where they do
not, effort is due (`roles.coder.select`).

Its request says ``work it out in words`` (what a scenario's script matches to answer it)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from roles.coder.instructions import DOCUMENT_CHARS
from roles.coder.recompute import recomputed
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.program import given_values, quoted_documents
from roles.verifier.values import ANSWER_LINE, final_answer

__all__ = ["MARK", "RECOMPUTED", "STEPS_FIRST", "SYSTEM", "final_value", "request", "worked"]

RECOMPUTED = "recomputed.txt"
"""A worked answer's file naming each result of its arithmetic that code corrected."""

MARK = "Work it out in words"
"""In every prose request."""

SYSTEM = (
    "You are a careful analyst. Work the task out step by step in words and arithmetic; do "
    "not write code. Check each step. End with one line that starts with 'Answer:' and "
    "states the value the task asks for and nothing else."
)

STEPS_FIRST = (
    "First list each quantity and condition the goal gives, one per line; then compute the "
    "answer from them."
)
"""A second prose view's note: other words draw another reasoning at temperature 0."""


def request(
    goal: str,
    task: str,
    inputs: Mapping[str, JsonValue],
    documents: Mapping[str, str],
    note: str = "",
    system: str = SYSTEM,
) -> list[LLMMessage]:
    """The messages of one prose view (``note``: what this view adds to the task)."""
    parts = [
        f"Overall goal: {goal}",
        f"Your task: {task}",
        given_values(inputs),
        *quoted_documents(documents, DOCUMENT_CHARS),
        f"{MARK}, then give the final answer line. {note}".strip(),
    ]
    return [
        SystemMessage(content=system),
        UserMessage(content="\n\n".join(p for p in parts if p), source="manager"),
    ]


_CONCLUDES = re.compile(r"\s*\**(?:therefore|thus|hence|so|in conclusion)\b", re.I)
"""A line that states a worked answer's conclusion."""
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_LATEX = re.compile(r"\\[\[\]()]|\\(?:text|mathrm|textbf)\{([^{}]*)\}|\\(?=[$%])")


def final_value(reply: str) -> str:
    """The value a worked answer ends on: its last ``Answer:`` line (up to a blank line),
    else its last ``\\boxed{…}`` (what small models trained on maths write instead), else
    its last line that concludes ("Therefore, the total is 45%."), with LaTeX delimiters
    taken off; "" when it states none. On train (1.5B), one prose answer in three ended on
    ``\\boxed{99}`` alone, and one put its ``Answer:`` inside ``\\[ … \\]``; on TAT-QA dev,
    two worked answers that both ended "Therefore, … is 45%." were lost for want of a line."""
    if ANSWER_LINE.search(reply):
        value = final_answer(reply).split("\n\n")[0]
    elif boxed := _BOXED.findall(reply):
        value = boxed[-1]
    else:
        concluding = [line for line in reply.splitlines() if _CONCLUDES.match(line)]
        value = concluding[-1] if concluding else ""
    value = _BOXED.sub(lambda m: m.group(1), value)
    value = _LATEX.sub(lambda m: m.group(1) or "", value)
    return " ".join(value.split()).strip(" .")


def worked(reply: str) -> Solved:
    """The prose view's candidate: the value it ends on (`final_value`), with the arithmetic
    of its working done again by code (`roles.coder.recompute`: what was corrected is its
    ``recomputed.txt``; its text kept as the candidate's code); raises `TaskFailed` when it
    states none."""
    value = final_value(reply)
    if not value or len(value) > 500 or (value.startswith("<") and value.endswith(">")):
        msg = "the worked answer in prose ends with no 'Answer:' line"
        raise TaskFailed(msg)
    value, fixes = recomputed(reply, value)
    files = {RECOMPUTED: "".join(f"{f.shown()}\n" for f in fixes).encode()} if fixes else {}
    return Solved({"answer": value}, files, "", 1, reply, view="prose")
