"""What a receiver refuses, as a `DeadLetter` envelope: the message as received (cut),
the reason, and who could not take it."""

from __future__ import annotations

from pydantic import ValidationError

from bus import subjects
from bus.envelope import Envelope
from bus.errors import SubjectError
from bus.payloads import DeadLetter

__all__ = ["RAW_LIMIT", "dead_letter", "short_error"]

RAW_LIMIT = 65536
"""Bytes of a refused message kept in its dead letter."""


def dead_letter(subject: str, data: bytes, error: str, *, sender: str, receiver: str) -> Envelope:
    """The dead letter of a message refused on ``subject`` (of the subject's run)."""
    try:
        run_id = subjects.parse(subject).run_id
    except SubjectError:
        run_id = "unknown"
    letter = DeadLetter(
        subject=subject,
        raw=data[:RAW_LIMIT].decode("utf-8", "replace"),
        error=error,
        receiver=receiver,
    )
    return Envelope.new(run_id, sender, letter)


def short_error(exc: ValidationError) -> str:
    """The first few errors of a validation failure, on one line."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "(message)"
        parts.append(f"{loc}: {err['msg']}")
    more = exc.error_count() - 5
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)
