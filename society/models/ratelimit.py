"""Client-side rate limits (requests and tokens per minute) shared by every role of a
process, and how to read the provider's own rate-limit answers (HTTP 429, Retry-After).

The limiter is a token bucket per dimension whose burst plus refill over any 60 s can
never exceed the stated per-minute limit, so the provider we were told about never has
to refuse us; within that, calls start as soon as the budget allows. A call *reserves*
its place (the bucket may go below zero) and waits until the place is due, so callers
are served in order and one limiter can serve other processes too (`society.run.limits_host`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Limiter", "RateLimiter", "TokenBucket", "is_rate_limited", "retry_after"]


class Limiter(Protocol):
    """What a client needs of a rate limit: this process's, or the run's shared one."""

    @property
    def counts_tokens(self) -> bool:
        """Whether a tokens-per-minute limit applies (then calls estimate their tokens)."""
        ...

    async def acquire(self, tokens: int) -> float:
        """Wait for a place for a call of about ``tokens`` tokens; returns the seconds waited."""
        ...

    def settle(self, estimated: int, actual: int) -> None:
        """Correct the tokens taken once the real usage is known."""
        ...


class TokenBucket:
    """``per_minute`` units a minute at most: burst of a second's worth, refill for the rest
    but one unit, so calls that arrive unevenly (network, scheduling) still never crowd
    more than the limit into any 60 s."""

    def __init__(self, per_minute: float, now: float | None = None) -> None:
        self.capacity = max(1.0, per_minute / 60.0)
        self.rate = max(per_minute - self.capacity - 1.0, per_minute / 60.0) / 60.0
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

    @property
    def counts_tokens(self) -> bool:
        """Whether a tokens-per-minute limit applies."""
        return self.tokens is not None

    def reserve(self, tokens: int) -> float:
        """Take a place for a request of about ``tokens`` tokens now; returns the seconds
        until it is due (the caller waits that long before sending)."""
        now = time.monotonic()
        wait = max(
            self.requests.delay_for(1, now) if self.requests else 0.0,
            self.tokens.delay_for(tokens, now) if self.tokens else 0.0,
        )
        if self.requests:
            self.requests.take(1, now)
        if self.tokens:
            self.tokens.take(tokens, now)
        return wait

    async def acquire(self, tokens: int) -> float:
        """Reserve a place, then wait until it is due; returns the seconds waited."""
        wait = self.reserve(tokens)
        if wait > 0:
            await asyncio.sleep(wait)
        return wait

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
