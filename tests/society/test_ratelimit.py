"""Rate-limit arithmetic (no clocks involved: times are passed in)."""

from __future__ import annotations

from typing import ClassVar

from society.models.ratelimit import TokenBucket, is_rate_limited, retry_after


def test_bucket_never_allows_more_than_the_limit_in_any_minute() -> None:
    bucket = TokenBucket(per_minute=120, now=0.0)
    t, taken = 0.0, []
    while t < 300:
        wait = bucket.delay_for(1, t)
        t += wait
        bucket.take(1, t)
        taken.append(t)
    for i, start in enumerate(taken):
        in_window = [x for x in taken[i:] if x < start + 60]
        assert len(in_window) <= 120


def test_bucket_uses_the_limit_nearly_to_the_full() -> None:
    bucket = TokenBucket(per_minute=600, now=0.0)
    t, n = 0.0, 0
    while t < 600:
        t += bucket.delay_for(1, t)
        bucket.take(1, t)
        n += 1
    assert n >= 0.98 * 600 * 10


class FakeResponse:
    status_code = 429
    headers: ClassVar[dict[str, str]] = {"retry-after": "1.5"}


class RateLimitError(Exception):
    response = FakeResponse()


def test_429_detection_and_retry_after() -> None:
    exc = RateLimitError("slow down")
    assert is_rate_limited(exc)
    assert retry_after(exc) == 1.5
    assert not is_rate_limited(ValueError("other"))
