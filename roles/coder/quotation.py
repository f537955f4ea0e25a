"""A task answered by quotation: when the researcher quoted the answer in the report's own
words (the reading plan's ``quoted``), the answer is that quotation as it is — no program
retypes it and no model call is made. Whether it answers the goal is for the checks beside
it to say: the quotes' grounding, and the goal check answering the whole goal on its own."""

from __future__ import annotations

from typing import Protocol

from pydantic import JsonValue

from bus import Envelope
from bus.evidence import QUOTED
from bus.payloads import TaskAssignment, TaskResult

__all__ = ["by_quotation", "quotation_of"]


def quotation_of(assignment: TaskAssignment) -> str | None:
    """The quotation that answers the task, or None (none given, or nothing in it)."""
    if "answer" not in assignment.task.outputs or QUOTED not in assignment.task.inputs:
        return None
    value: JsonValue = assignment.inputs.get(QUOTED)
    if isinstance(value, list):
        items = [str(v).strip() for v in value if str(v).strip()]
        return "; ".join(items) or None
    if isinstance(value, str):
        return value.strip() or None
    return None


class _Role(Protocol):
    @property
    def name(self) -> str: ...


async def by_quotation(coder: _Role, env: Envelope, assignment: TaskAssignment) -> TaskResult:
    """The answer: the quotation as it is, with no verdict of its own."""
    quoted = quotation_of(assignment)
    assert quoted is not None  # the strategy fits only then
    return TaskResult(
        task_id=assignment.task.id,
        role=coder.name,
        attempt=assignment.attempt,
        status="done",
        outputs={"answer": quoted},
        summary="answered by the researcher's quotation, as it stands in the documents",
    )
