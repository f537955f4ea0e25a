"""Structured model answers: find the JSON in a reply and validate it into a pydantic model.

Models wrap JSON in prose or code fences; we take the outermost object. What does not
validate is described compactly so it can be sent back to the model.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

__all__ = [
    "AnswerInvalid",
    "AnswerShape",
    "CodeAnswer",
    "code_from",
    "describe_error",
    "extract_code",
    "parse_answer",
    "schema_hint",
    "shape_of",
]

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.S)
_LANGUAGE_LINE = re.compile(r"\A\s*(?:python3?|py)[ \t]*\n", re.I)
_CODE_FENCE = re.compile(r"```(?:python|py|Python)?[ \t]*\n(.*?)```", re.S)


class AnswerInvalid(ValueError):
    """A model answer that is not the structure asked for; the message says why."""


def _json_text(text: str) -> str:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        msg = "the answer holds no JSON object"
        raise AnswerInvalid(msg)
    return text[start : end + 1]


def describe_error(exc: ValidationError) -> str:
    """Pydantic errors as short lines: ``path: message``."""
    lines = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "json_invalid":
            lines.append(f"not valid JSON: {err['msg']}")
        else:
            lines.append(f"{loc}: {err['msg']}")
    return "; ".join(lines)


def _validate(raw: str, model: type[M]) -> M:
    """``raw`` as ``model``. A raw newline or tab inside a string is taken as written:
    llama.cpp's schema grammar lets a model emit one, so refusing it would spend a retry
    on an answer the server itself held to the schema."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        if not any(err["type"] == "json_invalid" for err in exc.errors()):
            raise
        try:
            data = json.loads(raw, strict=False)
        except json.JSONDecodeError:
            raise exc from None
        return model.model_validate(data)


def parse_answer(text: str, model: type[M]) -> M:
    """Validate the JSON object in ``text`` as ``model``; raises `AnswerInvalid`."""
    try:
        return _validate(_json_text(text), model)
    except ValidationError as exc:
        raise AnswerInvalid(describe_error(exc)) from None


@dataclass(frozen=True, eq=False)
class AnswerShape(Generic[M]):
    """What a structured answer must be: the model that parses it, the JSON schema the
    server is asked to hold it to, and a check of what that schema asks beyond the model
    (a role's per-task schema then costs a dict, not a pydantic model class per task)."""

    model: type[M]
    doc: dict[str, Any]
    """The JSON schema (``model.model_json_schema()`` unless the shape adds to it)."""
    check: Callable[[M], str | None] | None = None
    """What is wrong with a parsed answer that the model alone lets through, or None."""

    def parse(self, text: str) -> M:
        """The answer in ``text``; raises `AnswerInvalid` with what is wrong."""
        answer = parse_answer(text, self.model)
        why = self.check(answer) if self.check is not None else None
        if why is not None:
            raise AnswerInvalid(why)
        return answer


@functools.cache
def shape_of(model: type[M]) -> AnswerShape[M]:
    """The shape of answers that are just ``model`` (its schema computed once)."""
    return AnswerShape(model, model.model_json_schema())


def extract_code(text: str) -> str:
    """The Python code in an answer: the longest fenced block, else the whole text."""
    blocks = _CODE_FENCE.findall(text)
    if blocks:
        return str(max(blocks, key=len)).strip("\n") + "\n"
    stripped = text.strip()
    if not stripped:
        msg = "the answer holds no code"
        raise AnswerInvalid(msg)
    return stripped + "\n"


class CodeAnswer(BaseModel):
    """A code answer in structured mode: the program as one string."""

    code: str = Field(description="the whole Python program")


def code_from(text: str) -> str:
    """The program in an answer: ``{"code": ...}`` (structured mode), else `extract_code`."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            code = _validate(stripped, CodeAnswer).code
        except ValidationError:
            pass
        else:  # a fence or a bare language tag inside the JSON string is not code
            if "```" in code:
                code = extract_code(code)
            return _LANGUAGE_LINE.sub("", code, count=1).strip("\n") + "\n"
    return extract_code(text)


def schema_hint(model: type[BaseModel]) -> str:
    """A compact description of the JSON fields a model expects, for prompts."""
    parts = []
    for name, field in model.model_fields.items():
        ann = getattr(field.annotation, "__name__", None) or str(field.annotation)
        ann = ann.replace("typing.", "")
        desc = f" — {field.description}" if field.description else ""
        parts.append(f'  "{name}": {ann}{desc}')
    return "{\n" + ",\n".join(parts) + "\n}"
