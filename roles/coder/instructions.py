"""The coder's instructions: its system prompt (what a prompt set of `society train` may
replace), how much of the goal's documents its prompt quotes, how a recalled solution is
introduced, and the request for a program that all of them make up (`task_request`)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from bus.payloads import TaskAssignment
from roles.coder.input_notes import input_notes
from roles.program import given_values, quoted_documents

__all__ = ["DOCUMENT_CHARS", "SYSTEM", "WORKED_EXAMPLE", "task_request", "with_libraries"]

SYSTEM = """You are the coder of a team of AI agents. You write one self-contained Python 3
program for a task. It runs in a sandbox with no network. The values given with the task
are already defined as Python variables of those names (and all together in the dict
`inputs`, also the file inputs.json); the goal's documents are files in the working folder.
A task with one output prints it; a task with several writes outputs.json, one JSON object
with one key per output. Files you write in the working folder are kept as artifacts. The
program runs as it is: no input(), no command-line arguments, and code at module level (a
function you define must be called). Answer with the whole program in one fenced
```python block."""

DOCUMENT_CHARS = 6000
"""How much of the goal's documents the coder's prompt quotes (all of them are files)."""

WORKED_EXAMPLE = (
    "A verified solution of a similar goal (its values may differ; adapt it, do not copy "
    "its numbers):"
)
"""What precedes a recalled solution in a program's prompt (`roles.solutions`)."""


def with_libraries(system: str, described: str | None) -> str:
    """``system`` with what the sandbox has (``described``; None: say nothing)."""
    if described is None:
        return system
    return f"{system}\nThe sandbox has {described}; nothing else can be installed."


def task_request(
    assignment: TaskAssignment,
    documents: Mapping[str, str],
    examples: list[str],
    notes: list[str],
    note: str = "",
) -> str:
    """The request for a program: the goal, the task, its values (with how to read them),
    its documents, recalled worked examples, what to keep in mind, then ``note``."""
    task = assignment.task
    inputs: dict[str, JsonValue] = assignment.inputs
    parts = [
        f"Overall goal: {assignment.goal}",
        f"Your task ({task.id}): {task.description}",
        f"Outputs to produce: {', '.join(task.outputs) or '(none)'}",
        given_values(inputs),
        *input_notes(inputs),
        *quoted_documents(dict(documents), DOCUMENT_CHARS),
    ]
    if examples:
        parts.append(WORKED_EXAMPLE + "\n\n" + "\n\n".join(examples))
    if notes:
        parts.append("Keep in mind:\n- " + "\n- ".join(notes))
    if note:
        parts.append(note)
    return "\n\n".join(parts)
