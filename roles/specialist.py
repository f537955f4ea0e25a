"""A specialist: a role a scenario declares (``specialists:``) with its own name,
instructions, model and tools, which answers the tasks the planner gives it.

Each specialist is a role of its own on the bus — its own task queue, its own identity and
credential — made by `roles.registry.specialist` as a subclass of `Specialist` named after
it. It answers a task with its model (calling its MCP tools when given), in JSON with one
value per requested output. It writes no check of its own answer: a run whose answer only
a specialist gave ends ``unverified`` unless something else checks it.

Uses: the model (and budget guard), its tools, long-term memory for lessons.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core.models import LLMMessage, UserMessage
from pydantic import BaseModel, ConfigDict, JsonValue

from bus import Envelope
from bus.payloads import TaskAssignment, TaskResult
from roles.settings import SpecialistSettings
from roles.structured import AnswerShape
from roles.worker import WorkerRole, task_header

__all__ = ["Specialist", "SpecialistAnswer", "answer_shape"]

FRAME = """You are {name}, a specialist in a team of AI agents; the team's planner gave \
you the task below. Answer with one JSON object only:
{{"outputs": {{<one key per requested output>}}, "summary": "..."}}"""


class SpecialistAnswer(BaseModel):
    """A specialist's answer: a value per requested output, and what it did."""

    model_config = ConfigDict(extra="ignore")

    outputs: dict[str, JsonValue]
    summary: str = ""


def answer_shape(outputs: Sequence[str]) -> AnswerShape[SpecialistAnswer]:
    """Answers holding exactly the task's outputs, so a missing one goes back to the model."""
    names = list(dict.fromkeys(outputs))
    doc: dict[str, Any] = SpecialistAnswer.model_json_schema()
    doc["properties"]["outputs"] = {
        "type": "object",
        "properties": {name: {} for name in names},
        "required": names,
    }

    def missing(answer: SpecialistAnswer) -> str | None:
        lost = [name for name in names if name not in answer.outputs]
        return "; ".join(f"outputs.{name}: Field required" for name in lost[:8]) or None

    return AnswerShape(SpecialistAnswer, doc, missing)


class Specialist(WorkerRole[SpecialistSettings]):
    """Answers its tasks with its model; subclassed per specialist (its ``name``)."""

    name = "specialist"

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Ask the model (with the task's lessons), check every output is there."""
        task = assignment.task
        lessons = await self.recall(f"{task.description} {' '.join(task.outputs)}", parent=env)
        answer = await self.calls.structured(
            self.prompt(assignment, lessons),
            answer_shape(task.outputs),
            what=f"{self.name} answer",
            parent=env,
            task_id=task.id,
        )
        return TaskResult(
            task_id=task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs={name: answer.outputs[name] for name in task.outputs},
            summary=answer.summary,
        )

    def prompt(self, assignment: TaskAssignment, lessons: list[str]) -> list[LLMMessage]:
        """The messages for one task: its instructions, the goal, the task and its inputs."""
        parts = task_header(assignment)
        notes = [*assignment.notes, *lessons, *self.talk.take_remarks()]
        if notes:
            parts.append("Keep in mind:\n- " + "\n- ".join(notes))
        frame = FRAME.format(name=self.name)
        system = f"{self.instructions('')}\n\n{frame}".strip()
        return [
            self.system_prompt(system),
            UserMessage(content="\n\n".join(parts), source="manager"),
        ]
