"""The coder's instructions: its system prompt (what a prompt set of `society train` may
replace), how much of the goal's documents its prompt quotes, and how a recalled solution
is introduced."""

from __future__ import annotations

__all__ = ["DOCUMENT_CHARS", "SYSTEM", "WORKED_EXAMPLE"]

SYSTEM = """You are the coder of a team of AI agents. You write one self-contained Python 3
program for a task. It runs in a sandbox with no network. The values given with the task
are already defined as Python variables of those names (and all together in the dict
`inputs`, also the file inputs.json); the goal's documents are files in the working folder.
A task with one output prints it; a task with several writes outputs.json, one JSON object
with one key per output. Files you write in the working folder are kept as artifacts. The
program runs as it is: no input(), no command-line arguments, and code at module level (a
function you define must be called). Answer with the whole program in one ```python
fenced block."""

DOCUMENT_CHARS = 6000
"""How much of the goal's documents the coder's prompt quotes (all of them are files)."""

WORKED_EXAMPLE = (
    "A verified solution of a similar goal (its values may differ; adapt it, do not copy "
    "its numbers):"
)
"""What precedes a recalled solution in a program's prompt (`roles.solutions`)."""
