"""What a role gets to call its model: any AutoGen ``ChatCompletionClient`` plus its price.

The role does not build clients (that is the application's job); it receives one, calls
it through `ModelAccess.call`, and publishes what the call used.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from autogen_core.models import ChatCompletionClient, LLMMessage

__all__ = ["ModelAccess", "ModelReply", "call_task", "estimate_tokens", "fingerprint"]

call_task: contextvars.ContextVar[str | None] = contextvars.ContextVar("call_task", default=None)
"""The task a model call is made for (None: none), for clients that care (replay)."""


def estimate_tokens(messages: Sequence[LLMMessage]) -> int:
    """About four characters a token: an offline estimate of a prompt's size."""
    return (
        sum(len(m.content if isinstance(m.content, str) else str(m.content)) for m in messages) // 4
        + 1
    )


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


@dataclass(frozen=True)
class ModelReply:
    """The text of one answer and what it used."""

    text: str
    tokens_in: int
    tokens_out: int
    cost: float
    latency_s: float
    fingerprint: str


@dataclass
class ModelAccess:
    """A model client with its name and price (per million tokens)."""

    client: ChatCompletionClient
    model: str
    price_in: float = 0.0
    price_out: float = 0.0

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """Money for a call of this size."""
        return (tokens_in * self.price_in + tokens_out * self.price_out) / 1_000_000

    async def call(self, messages: Sequence[LLMMessage], task_id: str | None = None) -> ModelReply:
        """Call the model once (for ``task_id``) and measure it."""
        fp = fingerprint(self.model, messages)
        start = time.monotonic()
        token = call_task.set(task_id)
        try:
            result = await self.client.create(list(messages))
        finally:
            call_task.reset(token)
        latency = time.monotonic() - start
        content = result.content
        text = content if isinstance(content, str) else json.dumps([str(c) for c in content])
        tin, tout = result.usage.prompt_tokens, result.usage.completion_tokens
        return ModelReply(text, tin, tout, self.cost(tin, tout), latency, fp)
