"""Shared plumbing of the offline model clients (scripted and replay): the parts of
AutoGen's ``ChatCompletionClient`` protocol that do not depend on where answers come from."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

from autogen_core import FunctionCall
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,
    ModelFamily,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema

__all__ = ["Content", "OfflineClient", "estimate_tokens", "last_user_text", "system_text"]

Content = str | list[FunctionCall]
"""An answer: text, or the tool calls the model asks for."""


def estimate_tokens(text: str) -> int:
    """About four characters a token: good enough for budgets in offline runs."""
    return max(1, (len(text) + 3) // 4)


def _text(message: LLMMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else str(content)


def system_text(messages: Sequence[LLMMessage]) -> str:
    """The text of the system messages (what scripted ``instructions`` are matched against)."""
    return "\n".join(_text(m) for m in messages if m.type == "SystemMessage")


def last_user_text(messages: Sequence[LLMMessage]) -> str:
    """The text of the last user message or tool result (what scripted answers are
    matched against)."""
    for message in reversed(messages):
        if message.type in ("UserMessage", "FunctionExecutionResultMessage"):
            return _text(message)
    return _text(messages[-1]) if messages else ""


class OfflineClient(ChatCompletionClient):
    """Base for clients that answer without a network: subclasses implement `answer`."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._total = RequestUsage(prompt_tokens=0, completion_tokens=0)
        self._last = RequestUsage(prompt_tokens=0, completion_tokens=0)
        self._info = ModelInfo(
            vision=False,
            function_calling=False,
            json_output=True,
            family=ModelFamily.UNKNOWN,
            structured_output=False,
        )

    async def answer(self, messages: Sequence[LLMMessage]) -> tuple[Content, RequestUsage]:
        """The next answer (text or tool calls) and the usage to report for it."""
        raise NotImplementedError

    async def create(self, messages: Sequence[LLMMessage], **_: Any) -> CreateResult:
        """Answer one request."""
        text, usage = await self.answer(messages)
        return self._result(text, usage)

    def _result(self, text: Content, usage: RequestUsage) -> CreateResult:
        """Account for an answer and wrap it as AutoGen's result."""
        self._last = usage
        self._total = RequestUsage(
            prompt_tokens=self._total.prompt_tokens + usage.prompt_tokens,
            completion_tokens=self._total.completion_tokens + usage.completion_tokens,
        )
        if isinstance(text, str):
            return CreateResult(finish_reason="stop", content=text, usage=usage, cached=False)
        return CreateResult(finish_reason="function_calls", content=text, usage=usage, cached=False)

    async def create_stream(
        self, messages: Sequence[LLMMessage], **_: Any
    ) -> AsyncGenerator[str | CreateResult, None]:
        """The whole answer as one chunk, then the result."""
        result = await self.create(messages)
        assert isinstance(result.content, str)
        yield result.content
        yield result

    async def close(self) -> None:
        """Nothing to release."""

    def actual_usage(self) -> RequestUsage:
        """Usage of the last call."""
        return self._last

    def total_usage(self) -> RequestUsage:
        """Usage of all calls."""
        return self._total

    def count_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        """Estimated prompt tokens."""
        return sum(estimate_tokens(_text(m)) for m in messages)

    def remaining_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        """Offline clients have no context limit worth enforcing."""
        return 1_000_000 - self.count_tokens(messages)

    @property
    def capabilities(self) -> ModelCapabilities:
        """Deprecated AutoGen property, kept for the protocol."""
        return ModelCapabilities(vision=False, function_calling=False, json_output=True)

    @property
    def model_info(self) -> ModelInfo:
        """What the offline model can do."""
        return self._info
