"""Process-wide taps: callbacks that see every envelope this process's buses send or
deliver (tracing builds its spans from them). With no tap installed they cost one check."""

from __future__ import annotations

from collections.abc import Callable

from bus.envelope import Envelope, decode

__all__ = ["Tap", "add", "delivered", "remove", "sent", "sent_bytes"]

Tap = Callable[[Envelope, bool], None]
"""Called with an envelope and whether this process sent it (False: it was delivered here)."""

_taps: list[Tap] = []


def add(tap: Tap) -> None:
    """Start calling ``tap`` for every envelope sent or delivered in this process."""
    _taps.append(tap)


def remove(tap: Tap) -> None:
    """Stop calling ``tap`` (no error if it was not installed)."""
    if tap in _taps:
        _taps.remove(tap)


def _call(env: Envelope, was_sent: bool) -> None:
    for tap in tuple(_taps):
        tap(env, was_sent)


def sent(env: Envelope) -> None:
    """An envelope this process published."""
    if _taps:
        _call(env, True)


def sent_bytes(data: bytes) -> None:
    """An envelope this process published, as encoded (decoded only when a tap listens)."""
    if _taps:
        _call(decode(data), True)


def delivered(env: Envelope) -> None:
    """An envelope delivered to a handler in this process."""
    if _taps:
        _call(env, False)
