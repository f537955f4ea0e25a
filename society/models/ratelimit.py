"""Client-side rate limits (requests and tokens per minute) shared by every role of a
process, and backoff on the provider's own rate-limit answers (HTTP 429).

The limiter is a token bucket per dimension whose burst plus refill over any 60 s can
never exceed the stated per-minute limit, so the provider we were told about never has
to refuse us; within that, calls start as soon as the budget allows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal

from autogen_core import CancellationToken
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

__all__ = ["RateLimitedClient", "RateLimiter", "TokenBucket", "is_rate_limited", "retry_after"]


class TokenBucket:
    """``per_minute`` units a minute at most: burst of a second's worth, refill for the rest."""

    def __init__(self, per_minute: float, now: float | None = None) -> None:
        self.capacity = max(1.0, per_minute / 60.0)
        self.rate = max(per_minute - self.capacity, per_minute / 60.0) / 60.0
        self.level = self.capacity
        self.stamp = time.monotonic() if now is None else now

    def _refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def delay_for(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` can be taken (0 when it can now)."""
        self._refill(now)
        need = min(amount, self.capacity) - self.level
        return 0.0 if need <= 0 else need / self.rate

    def take(self, amount: float, now: float) -> None:
        """Take ``amount`` (the level may go negative for an oversized request)."""
        self._refill(now)
        self.level -= amount


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits for one model."""

    def __init__(self, rpm: float | None, tpm: float | None) -> None:
        self.requests = TokenBucket(rpm) if rpm else None
        self.tokens = TokenBucket(tpm) if tpm else None
        self._lock = asyncio.Lock()

    async def acquire(self, tokens: int) -> None:
        """Wait until a request of about ``tokens`` tokens fits both limits, then take it."""
        async with self._lock:
            while True:
                now = time.monotonic()
                wait = max(
                    self.requests.delay_for(1, now) if self.requests else 0.0,
                    self.tokens.delay_for(tokens, now) if self.tokens else 0.0,
                )
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            now = time.monotonic()
            if self.requests:
                self.requests.take(1, now)
            if self.tokens:
                self.tokens.take(tokens, now)

    def settle(self, estimated: int, actual: int) -> None:
        """Correct the token bucket once the real usage is known."""
        if self.tokens and actual != estimated:
            self.tokens.take(actual - estimated, time.monotonic())


def is_rate_limited(exc: BaseException) -> bool:
    """Whether ``exc`` is a provider's rate-limit answer (HTTP 429)."""
    status = getattr(exc, "status_code", None) or getattr(
        getattr(exc, "response", None), "status_code", None
    )
    return status == 429 or type(exc).__name__ == "RateLimitError"


def retry_after(exc: BaseException) -> float | None:
    """The provider's Retry-After, in seconds, when it sent one."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    for key in ("retry-after-ms", "retry-after"):
        value = headers.get(key)
        if value is not None:
            try:
                seconds = float(value)
            except ValueError:
                continue
            return seconds / 1000 if key.endswith("ms") else seconds
    return None


class _Wait:
    def __init__(self, max_wait: float) -> None:
        self._exp = wait_exponential_jitter(max=max_wait)
        self.max_wait = max_wait

    def first(self, exc: BaseException) -> float:
        """The wait before the first retry."""
        hinted = retry_after(exc)
        return min(hinted, self.max_wait) if hinted is not None else 0.5

    def __call__(self, state: Any) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = retry_after(exc) if exc is not None else None
        if hinted is not None:
            return min(hinted, self.max_wait)
        return float(self._exp(state))


class RateLimitedClient(ChatCompletionClient):
    """Wraps any AutoGen client: waits for the limiter, retries 429s with backoff."""

    def __init__(
        self,
        inner: ChatCompletionClient,
        limiter: RateLimiter | None,
        *,
        max_tries: int = 8,
        max_wait: float = 60.0,
    ) -> None:
        self.inner = inner
        self.limiter = limiter
        self.max_tries = max_tries
        self.max_wait = max_wait

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = (),
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        """Create, within the limits, retrying rate-limit answers."""
        estimate = self.inner.count_tokens(messages) if self.limiter and self.limiter.tokens else 0

        async def once() -> CreateResult:
            if self.limiter is not None:
                await self.limiter.acquire(estimate)
            return await self.inner.create(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                json_output=json_output,
                extra_create_args=extra_create_args,
                cancellation_token=cancellation_token,
            )

        try:
            result = await once()
        except Exception as exc:
            if not is_rate_limited(exc):
                raise
            # The provider refused: back off (honouring Retry-After) and try again, bounded.
            await asyncio.sleep(_Wait(self.max_wait).first(exc))
            async for attempt in AsyncRetrying(
                retry=retry_if_exception(is_rate_limited),
                stop=stop_after_attempt(self.max_tries - 1),
                wait=_Wait(self.max_wait),
                reraise=True,
            ):
                with attempt:
                    result = await once()
        if self.limiter is not None:
            used = result.usage.prompt_tokens + result.usage.completion_tokens
            self.limiter.settle(estimate, used)
        return result

    def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = (),
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        """Streaming passes through (limits apply to `create`, which roles use)."""
        return self.inner.create_stream(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            json_output=json_output,
            extra_create_args=extra_create_args,
            cancellation_token=cancellation_token,
        )

    async def close(self) -> None:
        """Close the wrapped client."""
        await self.inner.close()

    def actual_usage(self) -> RequestUsage:
        """Delegated."""
        return self.inner.actual_usage()

    def total_usage(self) -> RequestUsage:
        """Delegated."""
        return self.inner.total_usage()

    def count_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        """Delegated."""
        return self.inner.count_tokens(messages, tools=tools)

    def remaining_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        """Delegated."""
        return self.inner.remaining_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:
        """Delegated."""
        return self.inner.capabilities

    @property
    def model_info(self) -> ModelInfo:
        """Delegated."""
        return self.inner.model_info
