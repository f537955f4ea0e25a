"""The researcher's answer: its outputs (or a question for the planner or the person), a
summary, the sources it cites and the quotes it read; and the schema a task's outputs give
it (`answer_shape`)."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue, model_validator

from bus.evidence import EVIDENCE, QUOTED, VALUES, Quote
from roles.researcher.grounding import number_of
from roles.structured import AnswerShape

__all__ = [
    "EVIDENCE",
    "FILLED",
    "QUOTED",
    "VALUES",
    "ResearchAnswer",
    "answer_shape",
    "quoted_values",
]

FILLED = frozenset({EVIDENCE, VALUES})
"""Outputs the role fills from the quotes; the model is never asked for them."""


def quoted_values(quotes: Sequence[Quote]) -> dict[str, JsonValue]:
    """The quoted figures as numbers, each named by its row and column (a figure quoted from
    a paragraph by its source and order); words are left out."""
    named: dict[str, JsonValue] = {}
    for i, q in enumerate(quotes, 1):
        value = number_of(q.text)
        if value is None:
            continue
        place = f"{q.row} ({q.column})" if q.row and q.column else q.row or q.column
        name = place or f"{q.source or 'text'} #{i}"
        named[name if name not in named else f"{name} #{i}"] = value
    return named


class ResearchAnswer(BaseModel):
    """A research answer: the outputs (`answer_shape` says which), or a question."""

    model_config = ConfigDict(extra="ignore")

    ask: str | None = None
    ask_human: str | None = None
    outputs: dict[str, JsonValue] | None = None
    summary: str = ""
    sources: list[str] = []
    quotes: list[Quote] = []
    answer_is: Literal["stated", "computed"] | None = None
    """For a reading task: whether the answer stands in the documents as it is, or must be
    computed from several figures (then its ``quoted`` is set aside)."""

    @model_validator(mode="after")
    def _one_of(self) -> ResearchAnswer:
        if self.ask is None and self.ask_human is None and self.outputs is None:
            msg = "give either outputs or a question in ask"
            raise ValueError(msg)
        return self


_DOC = ResearchAnswer.model_json_schema()
del _DOC["description"]  # the schema as before, when a per-task model had no docstring


FOUND: dict[str, Any] = {
    "anyOf": [
        {"minLength": 1, "type": "string"},
        {"type": "number"},
        {"items": {"type": "string"}, "minItems": 1, "type": "array"},
    ]
}
"""What one output of a research task is: a text, a number or a list of texts — never an
object (a live 1.5B researcher, free to give any JSON, gave ``{}`` for each output)."""


_FIELDS = frozenset(ResearchAnswer.model_fields)


def _leaked(value: JsonValue) -> bool:
    """Whether a list output holds pieces of the answer's own JSON: an item with no letter
    or digit ("],"), or a field's name ("summary"). A live 1.5B researcher, held to a list
    of texts, wrote ``["],", "summary", "The prime number theorem …", "sources", …]``."""
    if not isinstance(value, list):
        return False
    items = [i.strip().lower() for i in value if isinstance(i, str)]
    return any(not re.search(r"[^\W_]", i) or i in _FIELDS for i in items)


def answer_shape(outputs: Sequence[str]) -> AnswerShape[ResearchAnswer]:
    """Answers that hold exactly the task's outputs, each `FOUND` (or a question), so a
    missing or empty output is sent back to the model with the error. The schema is the one pydantic gives a model
    with one required field per output, built as a dict: a model class per task cost
    about 4 ms of CPU (a third of a 3,000-task run's)."""
    names = [n for n in dict.fromkeys(outputs) if n not in FILLED]
    doc = copy.deepcopy(_DOC)
    outputs_def: dict[str, Any] = {
        "properties": {name: copy.deepcopy(FOUND) for name in names},
        "title": "Outputs",
        "type": "object",
    }
    if names:
        outputs_def["required"] = names
    defs = {k: v for k, v in doc.get("$defs", {}).items() if k != "JsonValue"}
    doc["$defs"] = {**defs, "Outputs": outputs_def}
    doc["properties"]["outputs"] = {
        "anyOf": [{"$ref": "#/$defs/Outputs"}, {"type": "null"}],
        "default": None,
    }

    def missing(answer: ResearchAnswer) -> str | None:
        if answer.outputs is None:
            return None
        lost = [name for name in names if name not in answer.outputs]
        empty = [n for n in names if n in answer.outputs and answer.outputs[n] in ({}, [], "")]
        said = [f"outputs.{name}: Field required" for name in lost[:8]]
        said += [
            f"outputs.{name}: give what was found (a text, a number or texts)" for name in empty
        ]
        leaked = [n for n in names if n not in empty and _leaked(answer.outputs.get(n))]
        said += [
            f"outputs.{name}: a list holds the texts found, not pieces of JSON or field names "
            "(give one text if that is what was found)"
            for name in leaked
        ]
        return "; ".join(said) or None

    return AnswerShape(ResearchAnswer, doc, missing)
