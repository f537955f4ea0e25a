"""`RetryingClient`: wraps any AutoGen client so each call stays within the process's rate
limits and the server's slots, ends within its timeout, and survives a flaky server — retrying refused and reset
connections, timeouts, 5xx, 429 (honouring Retry-After) and bodies that are not a chat
completion, with exponential backoff and jitter (tenacity). Each failed attempt is noted
for the record (`roles.model_access.call_retries`); when the tries run out the error
names the server, the model and what to try.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any

from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from bus.payloads import Retry
from roles.errors import ModelCallError
from roles.model_access import call_retries, call_waits
from society.models.ratelimit import Limiter, is_rate_limited, retry_after

__all__ = ["RetryingClient", "is_transient", "status_of"]


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a provider's error answer, when there was one."""
    status = getattr(exc, "status_code", None) or getattr(
        getattr(exc, "response", None), "status_code", None
    )
    return status if isinstance(status, int) else None


def _openai_error(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` is the openai SDK's error ``name`` (never, if the SDK is not loaded:
    it is imported only by the clients that use it, so a scripted run starts fast)."""
    sdk = sys.modules.get("openai")
    return sdk is not None and isinstance(exc, getattr(sdk, name))


def _garbage(exc: BaseException) -> bool:
    """A 200 whose body is not a chat completion (the SDK fails to read it)."""
    return isinstance(exc, json.JSONDecodeError) or (
        isinstance(exc, AttributeError) and str(exc).startswith("'str' object has no attribute")
    )


def is_transient(exc: BaseException) -> bool:
    """Worth another try: the server was unreachable, slow, overloaded or garbled."""
    if isinstance(exc, TimeoutError) or _openai_error(exc, "APIConnectionError") or _garbage(exc):
        return True
    status = status_of(exc)
    return is_rate_limited(exc) or (status is not None and status >= 500)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no complete answer within the timeout"
    if _garbage(exc):
        return f"the answer was not a chat completion ({type(exc).__name__}: {exc})"
    cause = exc.__cause__
    detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
    return f"{type(exc).__name__}: {exc}{detail}"


def _advice(exc: BaseException, endpoint: str, timeout_s: float | None) -> str:
    if _openai_error(exc, "APIConnectionError") and not _openai_error(exc, "APITimeoutError"):
        return f"is the server running and answering at {endpoint}? (try: curl {endpoint}/models)"
    if isinstance(exc, TimeoutError) or _openai_error(exc, "APITimeoutError"):
        return f"the server is slow or stuck: raise --timeout (now {timeout_s} s) or lower --max-tokens"
    if is_rate_limited(exc):
        return "the provider keeps refusing for its rate limit: set rate_limit on the model"
    return "check the server's log; a proxy or wrong --base-url can answer with a web page"


class RetryingClient(ChatCompletionClient):
    """Rate limits, a hard per-attempt timeout and bounded retries around any client."""

    def __init__(
        self,
        inner: ChatCompletionClient,
        limiter: Limiter | None = None,
        *,
        slots: asyncio.Semaphore | None = None,
        model: str = "",
        endpoint: str = "",
        timeout_s: float | None = None,
        tries: int = 4,
        max_wait: float = 30.0,
    ) -> None:
        self.inner = inner
        self.limiter = limiter
        self.slots = slots
        """Turns at the server: a call waits for one before it is sent and its timeout runs."""
        self.model = model
        self.endpoint = endpoint or "the provider's default endpoint"
        self.timeout_s = timeout_s
        self.tries = max(1, tries)
        self.max_wait = max_wait
        self._backoff = wait_exponential_jitter(multiplier=0.5, max=max_wait, jitter=0.5)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = retry_after(exc) if exc is not None else None
        return min(hinted, self.max_wait) if hinted is not None else float(self._backoff(state))

    @staticmethod
    def _note(state: RetryCallState) -> None:
        """Before sleeping for another try: put the failed attempt on the record."""
        exc = state.outcome.exception() if state.outcome else None
        noted = call_retries.get()
        if noted is not None and exc is not None:
            wait = state.next_action.sleep if state.next_action else 0.0
            noted.append(
                Retry(error=_reason(exc)[:500], status=status_of(exc), wait_s=round(wait, 3))
            )

    async def create(self, messages: Sequence[LLMMessage], **options: Any) -> CreateResult:
        """Create within the limits and the timeout, retrying what is transient."""
        estimate = (
            self.inner.count_tokens(messages) if self.limiter and self.limiter.counts_tokens else 0
        )

        async def once() -> CreateResult:
            if self.limiter is not None:
                waited = await self.limiter.acquire(estimate)
                noted = call_waits.get()
                if noted is not None and waited > 0.001:
                    noted.append(waited)
            if self.slots is None:
                return await sent()
            began = asyncio.get_running_loop().time()
            async with self.slots:
                waited = asyncio.get_running_loop().time() - began
                noted = call_waits.get()
                if noted is not None and waited > 0.001:
                    noted.append(waited)
                return await sent()

        async def sent() -> CreateResult:
            call = self.inner.create(messages, **options)
            if self.timeout_s is None:
                return await call
            async with asyncio.timeout(self.timeout_s):  # no task of its own, unlike wait_for
                return await call

        try:
            try:
                result = await once()  # most calls: no retry machinery at all
            except Exception as exc:
                if self.tries == 1 or not is_transient(exc):
                    raise
                result = await self._again(once, exc)
        except Exception as exc:
            if not is_transient(exc):
                raise
            msg = (
                f"model {self.model} at {self.endpoint} failed {self.tries} time(s); last: "
                f"{_reason(exc)} — {_advice(exc, self.endpoint, self.timeout_s)}"
            )
            raise ModelCallError(msg) from exc
        if self.limiter is not None:
            used = result.usage.prompt_tokens + result.usage.completion_tokens
            self.limiter.settle(estimate, used)
        return result

    async def _again(
        self, once: Callable[[], Awaitable[CreateResult]], failed: Exception
    ) -> CreateResult:
        """The tries after a first one that ``failed`` (transiently): noted, backed off."""
        first: list[Exception] = [failed]
        async for attempt in AsyncRetrying(
            retry=retry_if_exception(is_transient),
            stop=stop_after_attempt(self.tries),
            wait=self._wait,
            before_sleep=self._note,
            reraise=True,
        ):
            with attempt:
                if first:  # the attempt already made counts as the first
                    raise first.pop()
                return await once()
        raise AssertionError  # unreachable: tenacity returns or raises

    def create_stream(
        self, messages: Sequence[LLMMessage], **options: Any
    ) -> AsyncGenerator[str | CreateResult, None]:
        """Streaming passes through (limits apply to `create`, which roles use)."""
        return self.inner.create_stream(messages, **options)

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
