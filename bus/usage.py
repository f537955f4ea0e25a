"""The payloads that put resources on the record: model calls (`Usage`, with their
retries and the tool calls a model asked for) and MCP tool calls (`ToolCall`)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import JsonValue

from bus.payload_base import _Model, _Payload
from bus.subjects import Channel

__all__ = ["Recall", "RecalledLesson", "Retry", "ToolCall", "ToolRequest", "Usage"]


class Retry(_Model):
    """One failed attempt of a model call that was tried again (transport error, 5xx, 429)."""

    error: str
    """What went wrong (``Type: detail``)."""
    status: int | None = None
    """The HTTP status, when the server answered."""
    wait_s: float = 0.0
    """How long the client waited before the next attempt (Retry-After when given)."""


class ToolRequest(_Model):
    """A tool call a model asked for in its answer."""

    id: str
    name: str
    arguments: str
    """The arguments as the model wrote them (JSON text)."""


class Usage(_Payload):
    """Resources one step used: a model call (with its answer, for replay) or a sandbox run."""

    CHANNEL: ClassVar[Channel] = Channel.USAGE
    type: Literal["usage"] = "usage"
    kind: Literal["model", "sandbox"]
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    """Seconds the call took, waits for a rate limit not included."""
    rate_wait_s: float = 0.0
    """Seconds the call waited for the model's rate limit before it was sent."""
    sandbox_s: float = 0.0
    fingerprint: str = ""
    """sha256 of the request (model, messages), for replay matching."""
    answer: str | None = None
    """The model's answer (None when the call failed or was cancelled)."""
    error: str | None = None
    """Why a model call failed (``Type: detail``)."""
    cancelled: bool = False
    """The call was cancelled before it answered."""
    tool_calls: list[ToolRequest] = []
    """The tools the model asked to call instead of answering in text."""
    finish_reason: str | None = None
    """Why the model stopped (``length``: it hit ``max_tokens``)."""
    retries: list[Retry] = []
    """Attempts of this call that failed and were tried again, in order."""
    prompt: str | None = None
    """sha256 of the full request, stored as ``prompts/<sha256>.json`` in the run folder."""


class ToolCall(_Payload):
    """A tool call a role made over MCP, with its result or error (replay serves it back)."""

    CHANNEL: ClassVar[Channel] = Channel.USAGE
    type: Literal["tool_call"] = "tool_call"
    server: str
    tool: str
    call_id: str = ""
    """The model's id for this call."""
    arguments: dict[str, JsonValue] = {}
    result: str | None = None
    """The tool's text result (cut to the server's ``max_result_chars``)."""
    error: str | None = None
    """Why the call failed, was refused or timed out (the model is told this)."""
    latency_s: float = 0.0
    size: int = 0
    """Characters of the whole result before any cut."""
    truncated: bool = False


class RecalledLesson(_Model):
    """A lesson from long-term memory, as it went into a prompt."""

    id: int
    text: str


class Recall(_Payload):
    """What a role recalled from long-term memory for its next prompt: which lessons, for
    which query (lessons of other runs only; none found is recorded too)."""

    CHANNEL: ClassVar[Channel] = Channel.USAGE
    type: Literal["recall"] = "recall"
    role: str
    query: str
    lessons: list[RecalledLesson] = []
