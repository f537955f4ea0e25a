"""Secret redaction for logs and for anything the runner writes into the message log."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REDACTED", "redact", "redact_text"]

REDACTED = "***"
_SECRET_KEY = re.compile(
    r"(api[_-]?key|token|secret|password|passwd|authorization|credential)", re.I
)
_SECRET_VALUE = re.compile(
    r"(sk-[A-Za-z0-9_-]{8,}|Bearer\s+[A-Za-z0-9._~+/=-]{8,}|(?:xox[abp]|ghp|gho|github_pat)_[A-Za-z0-9_]{8,})"
)


def redact_text(text: str) -> str:
    """Replace things that look like API keys or bearer tokens in free text."""
    return _SECRET_VALUE.sub(REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-looking keys' values and key-like strings replaced."""
    if isinstance(value, dict):
        return {
            k: (
                REDACTED
                if isinstance(k, str) and _SECRET_KEY.search(k) and _secret(v)
                else redact(v)
            )
            for k, v in value.items()
        }

    if isinstance(value, list | tuple):
        return type(value)(redact(v) for v in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


_ENV_REF = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")


def _secret(value: Any) -> bool:
    """A value worth hiding: anything but empty values, numbers (``tokens_in: 120`` is a
    count, not a token) and ``${VAR}`` references."""
    if isinstance(value, int | float):
        return False
    return bool(value) and not (isinstance(value, str) and _ENV_REF.match(value))
