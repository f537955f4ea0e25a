"""What a role gets to call its model: any AutoGen ``ChatCompletionClient`` plus its price,
its limits and the way its server takes a schema for structured answers.

The role does not build clients (that is the application's job); it receives one, calls
it through `ModelAccess.call`, and publishes what the call used.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autogen_core import FunctionCall
from autogen_core.models import ChatCompletionClient, LLMMessage
from autogen_core.tools import ToolSchema

from bus.payloads import Retry, ToolRequest
from roles.settings import StructuredMode
from roles.structured import AnswerShape

__all__ = [
    "ModelAccess",
    "ModelReply",
    "StructuredMode",
    "call_retries",
    "call_task",
    "call_waits",
    "estimate_tokens",
    "fingerprint",
    "message_record",
    "structured_args",
]

call_task: contextvars.ContextVar[str | None] = contextvars.ContextVar("call_task", default=None)
"""The task a model call is made for (None: none), for clients that care (replay)."""

call_retries: contextvars.ContextVar[list[Retry] | None] = contextvars.ContextVar(
    "call_retries", default=None
)
"""Where a retrying client notes each failed attempt of the current call (for the record)."""

call_waits: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "call_waits", default=None
)
"""Where a rate-limited client notes each wait of the current call for its limit."""


def _text(content: object) -> str:
    return content if isinstance(content, str) else json.dumps(content, default=str)


def estimate_tokens(messages: Sequence[LLMMessage]) -> int:
    """About four characters a token: an offline estimate of a prompt's size."""
    return sum(len(_text(m.content)) for m in messages) // 4 + 1


def fingerprint(model: str, messages: Sequence[LLMMessage]) -> str:
    """sha256 of the model name and the messages: identifies a request for replay."""
    h = hashlib.sha256(model.encode())
    for m in messages:
        h.update(b"\x00" + m.type.encode() + b"\x00")
        content = m.content
        h.update(
            content.encode() if isinstance(content, str) else json.dumps(str(content)).encode()
        )
    return h.hexdigest()


def message_record(message: LLMMessage) -> dict[str, Any]:
    """One message as plain JSON, as the prompt record shows it."""
    data = message.model_dump(mode="json")
    data.pop("type", None)
    return {"type": message.type, **data}


def structured_args(mode: StructuredMode, schema: AnswerShape[Any] | None) -> dict[str, Any]:
    """The ``extra_create_args`` that ask the server for answers of ``schema``."""
    if schema is None:
        return {}
    doc = schema.doc
    match mode:
        case "prompt":
            return {}
        case "json_schema":
            fmt = {"name": schema.model.__name__, "schema": doc, "strict": False}
            return {"response_format": {"type": "json_schema", "json_schema": fmt}}
        case "json_object":
            return {"response_format": {"type": "json_object", "schema": doc}}
        case "vllm":
            return {"extra_body": {"guided_json": doc}}
        case "ollama":  # the client's own ``format`` (its json_output wants a model class)
            return {"format": doc}


@dataclass(frozen=True)
class ModelReply:
    """The text (or tool calls) of one answer and what it used."""

    text: str
    tokens_in: int
    tokens_out: int
    cost: float
    latency_s: float
    fingerprint: str
    tool_calls: tuple[ToolRequest, ...] = ()
    finish_reason: str | None = None
    retries: tuple[Retry, ...] = ()
    rate_wait_s: float = 0.0
    """Time spent waiting for the rate limit (not in ``latency_s``)."""


@dataclass
class ModelAccess:
    """A model client with its name, price (per million tokens) and limits."""

    client: ChatCompletionClient
    model: str
    price_in: float = 0.0
    price_out: float = 0.0
    structured: StructuredMode = "prompt"
    max_tokens: int | None = None
    timeout_s: float | None = None
    endpoint: str = ""
    """Where the model is served (for messages), e.g. ``http://127.0.0.1:8080/v1``."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Create args every call sends (``max_tokens`` in the server's spelling)."""

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """Money for a call of this size."""
        return (tokens_in * self.price_in + tokens_out * self.price_out) / 1_000_000

    def request(
        self,
        messages: Sequence[LLMMessage],
        schema: AnswerShape[Any] | None = None,
        tools: Sequence[ToolSchema] = (),
    ) -> dict[str, Any]:
        """The whole request as the prompt record keeps it."""
        extra = structured_args(self.structured, schema)
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "messages": [message_record(m) for m in messages],
            "tools": [dict(t) for t in tools],
            "structured": self.structured if schema is not None else None,
            "schema": schema.doc if schema is not None else None,
            "create_args": {**self.extra, **extra},
            "max_tokens": self.max_tokens,
            "timeout_s": self.timeout_s,
        }

    async def call(
        self,
        messages: Sequence[LLMMessage],
        task_id: str | None = None,
        *,
        schema: AnswerShape[Any] | None = None,
        tools: Sequence[ToolSchema] = (),
        retries: list[Retry] | None = None,
        waits: list[float] | None = None,
    ) -> ModelReply:
        """Call the model once (for ``task_id``), asking for ``schema`` in the server's
        structured mode and offering ``tools``, and measure it. A retrying client notes
        its failed attempts in ``retries`` (kept by the caller, so a failure has them too)."""
        fp = fingerprint(self.model, messages)
        extra = structured_args(self.structured, schema)
        retries = [] if retries is None else retries
        waits = [] if waits is None else waits
        start = time.monotonic()
        task_token = call_task.set(task_id)
        retry_token = call_retries.set(retries)
        wait_token = call_waits.set(waits)
        try:
            result = await self.client.create(
                list(messages),
                tools=list(tools),
                extra_create_args={**self.extra, **extra},
            )
        finally:
            call_waits.reset(wait_token)
            call_retries.reset(retry_token)
            call_task.reset(task_token)
        waited = sum(waits)
        latency = time.monotonic() - start - waited
        content = result.content
        calls: tuple[ToolRequest, ...] = ()
        if isinstance(content, str):
            text = content
        else:
            text = ""
            calls = tuple(_request(c) for c in content)
        tin, tout = result.usage.prompt_tokens, result.usage.completion_tokens
        return ModelReply(
            text,
            tin,
            tout,
            self.cost(tin, tout),
            latency,
            fp,
            calls,
            str(result.finish_reason),
            tuple(retries),
            waited,
        )


def _request(call: FunctionCall) -> ToolRequest:
    return ToolRequest(id=call.id, name=call.name, arguments=call.arguments)
