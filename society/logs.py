"""structlog, configured once: readable on a terminal, JSON otherwise; secrets redacted."""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, Literal

import structlog

from society.redact import redact

__all__ = ["LogFormat", "configure_logging"]

LogFormat = Literal["auto", "console", "json"]

_configured = False


def _redact_event(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = redact(dict(event))
    return result


def configure_logging(fmt: LogFormat = "auto", level: str = "info") -> None:
    """Set up structlog and stdlib logging to stderr (idempotent; last call wins)."""
    global _configured
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    numeric = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            _redact_event,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=max(numeric, logging.WARNING), stream=sys.stderr, force=True)
    _configured = True
