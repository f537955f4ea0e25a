"""What the planner's model must answer (`PlanAnswer`) and the schema its decoding is held
to (`plan_shape`): roles from the run's, identifiers for ids and value names, and for a
first plan over documents, reading, then computing, then the answer."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bus.payloads import TaskSpec
from roles.structured import AnswerShape

__all__ = ["IDENTIFIER", "READING_OPENS", "READING_OUTPUTS", "PlanAnswer", "plan_shape"]


class PlanAnswer(BaseModel):
    """What the planner's model must answer."""

    model_config = ConfigDict(extra="ignore")

    success_criteria: list[str] = Field(min_length=1)
    tasks: list[TaskSpec] = Field(min_length=1)
    rationale: str = ""


IDENTIFIER = "^[A-Za-z_][A-Za-z0-9_]*$"
"""What a task id or a value name may be in the plan schema sent to the model (unbounded:
llama.cpp turns a bounded repetition into as many nested rules, which slows constrained
decoding badly; the manager's validation still caps an id at 64 characters)."""


READING_OPENS = "From the documents, state what they say about "
"""How a planned reading task's description begins (held by the schema): the researcher
reads and cannot compute, and a live 1.5B plan free to word it gave it "find the statement
'There are infinitely many prime numbers'" (in no document) and "find the limit" (the
goal's own value), answers no task could use."""

READING_OUTPUTS = ("statement", "definition", "formula", "fact")
"""What a planned reading task may give (held by the schema): what documents state, never
a value to compute (a live 1.5B reading held to its opening was still asked for the
estimate and the count, and the researcher made both up)."""

READING_DESCRIPTION = "^" + READING_OPENS + r'[^"\\\x00-\x1F]+$'
"""The reading task's description as a pattern: the opening, then the topic in plain text
(no quote, backslash or control character, so decoding cannot break the JSON string)."""


@functools.cache
def plan_shape(
    roles: tuple[str, ...],
    max_tasks: int | None = None,
    reads_first: bool = False,
    reads_optional: bool = False,
) -> AnswerShape[PlanAnswer]:
    """The plan's schema as the model is held to it: ``role`` one of the run's roles, ids
    and value names identifiers, each task giving an output, so constrained decoding rules
    those mistakes out (the manager still validates, and refuses what gets through, saying
    what to change). With
    ``reads_first``, the first task is the researcher's and only others' follow; with
    ``reads_optional`` (a replan over documents), likewise, or with no reading at all."""
    doc = copy.deepcopy(PlanAnswer.model_json_schema())
    task = doc["$defs"]["TaskSpec"]["properties"]
    if roles:
        task["role"] = {**task["role"], "enum": list(roles)}
    task["id"] = {**task["id"], "pattern": IDENTIFIER}
    task.pop("purpose", None)  # the manager's to give, never the planner's
    if max_tasks is not None:
        doc["properties"]["tasks"] = {**doc["properties"]["tasks"], "maxItems": max_tasks}
    for name in ("inputs", "outputs", "depends_on"):
        task[name] = {**task[name], "items": {"type": "string", "pattern": IDENTIFIER}}
    task["outputs"]["minItems"] = 1  # a task that gives nothing loses its work (live 1.5B)
    # all three, in this order: a live 1.5B plan holding only "outputs" required wrote it
    # first and left every task's inputs out
    doc["$defs"]["TaskSpec"]["required"] += ["inputs", "outputs", "depends_on"]
    if reads_first or reads_optional:
        doc["properties"]["tasks"] = _reading_first(doc, roles, max_tasks or 5, reads_optional)
    known = set(roles)

    def check(answer: PlanAnswer) -> str | None:
        if any(t.purpose != "work" for t in answer.tasks):
            return "a task's purpose is the manager's to give: leave it out"
        wrong = [f"{t.id}: {t.role!r}" for t in answer.tasks if known and t.role not in known]
        if wrong:
            return f"tasks name roles that do not exist ({', '.join(wrong)}); use one of {', '.join(roles)}"
        return None

    return AnswerShape(PlanAnswer, doc, check)


def _reading_first(
    doc: dict[str, Any], roles: tuple[str, ...], most: int, optional: bool = False
) -> dict[str, Any]:
    """The tasks as a researcher's, then one to ``most - 1`` of the other roles (reading,
    then computing: a live 1.5B plan free to give the researcher any task gave it the
    counting and the comparing), the last of them giving the ``answer`` (a plan whose last
    task gave "difference" and "closeness" answered nothing). ``optional``: the reading may
    be left out (a replan, its reading often done: four live 1.5B replans of the quickstart
    gave the researcher the estimate or the ratio, which it made up, and two answered with
    no ``answer``). llama.cpp's grammar takes ``prefixItems`` as the whole array (as JSON
    Schema does with ``items`` false), so each length is one alternative. The reading's
    description opens with `READING_OPENS`, and it gives one or two of `READING_OUTPUTS`."""
    spec = doc["$defs"]["TaskSpec"]
    reading, after = copy.deepcopy(spec), copy.deepcopy(spec)
    reading["properties"]["role"] = {"type": "string", "enum": ["researcher"]}
    reading["properties"]["description"] = {"type": "string", "pattern": READING_DESCRIPTION}
    reading["properties"]["outputs"] = {
        "type": "array",
        "items": {"type": "string", "enum": list(READING_OUTPUTS)},
        "minItems": 1,
        "maxItems": 2,
    }
    others = [r for r in roles if r != "researcher"]
    if others:
        after["properties"]["role"] = {"type": "string", "enum": others}
    last = copy.deepcopy(after)
    answer = {"type": "string", "enum": ["answer"]}
    last["properties"]["outputs"] = {
        "type": "array",
        "prefixItems": [answer],
        "items": False,
        "minItems": 1,
    }
    doc["$defs"].update(ReadingTask=reading, LaterTask=after, AnswerTask=last)
    first, then = {"$ref": "#/$defs/ReadingTask"}, {"$ref": "#/$defs/LaterTask"}
    end = {"$ref": "#/$defs/AnswerTask"}
    shapes = [[first, *[then] * (n - 1), end] for n in range(1, max(most, 2))]
    if optional:
        shapes += [[*[then] * (n - 1), end] for n in range(1, most + 1)]
    return {
        "anyOf": [
            {"type": "array", "prefixItems": shape, "items": False, "minItems": len(shape)}
            for shape in shapes
        ]
    }
