"""The plain view: a program asked for the way a person asks a general assistant — the goal
in its own words, the given values as Python lines the program begins with, what it prints
is the answer — with none of the team's framing (no role, no task id, no outputs to name).

It fails differently from the coder's own request: on the dev suite's train split (1.5B,
the results of bec0244 and 3df3055) the society's answer and one program asked this way
were right on different cases — 39 and 36 of 80, 47 between them — and where they stated
the same numbers (17 cases) 14 were right, where the society's own `succeeded` were right 22
times of 30. So it is a view of its own (`roles.coder.select`), drawn second, and a member
that is the same computation as a program already drawn counts as that program
(`roles.coder.groups`).
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from bus.payloads import TaskAssignment
from roles.program import quoted_documents
from sandbox.manifest import Manifest

__all__ = ["PLAIN_SYSTEM", "plain_request"]

PLAIN_SYSTEM = (
    "You write one complete Python 3 program that computes the answer to the user's question "
    "and prints it. The program must run as it is: no input() and no command-line arguments. "
    "Compute every value; do not work anything out by hand. Print only the answer, with every "
    "value the question asks for (a short sentence or 'name: value' lines). Reply with the "
    "program in one ```python block."
)
"""What the plain view's model is told: a person's request, not the team's conventions."""

DOCUMENT_CHARS = 6000
"""How much of the goal's documents the request quotes (all of them are files)."""


def _line(name: str, value: JsonValue) -> str:
    if isinstance(value, str) and "\n" in value:
        return f'{name} = """\\\n{value.rstrip()}\n"""'
    return f"{name} = {value!r}"


def plain_request(
    assignment: TaskAssignment, documents: Mapping[str, str], libraries: Manifest | None
) -> list[LLMMessage]:
    """The plain view's messages for ``assignment``: its goal (and the task, when the task is
    not the goal itself), its values as the program's first lines, and its documents."""
    task = assignment.task
    goal = assignment.goal.strip()
    parts = [goal]
    if task.description.strip() and task.description.strip() != goal:
        parts.append(f"What to work out: {task.description.strip()}")
    if assignment.inputs:
        names = [n for n in assignment.inputs if n.isidentifier() and not keyword.iskeyword(n)]
        lines = "\n".join(_line(n, assignment.inputs[n]) for n in names)
        if lines:
            parts.append(
                "The given values. Your program must begin with these lines, copied as they "
                f"are:\n```python\n{lines}\n```"
            )
    parts += quoted_documents(dict(documents), DOCUMENT_CHARS)
    system = PLAIN_SYSTEM
    if libraries is not None:
        system += f" Python has {libraries.described()}; nothing else can be installed."
    return [SystemMessage(content=system), UserMessage(content="\n\n".join(parts), source="user")]
