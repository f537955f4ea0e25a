"""Errors of the bus package; nats-py's exceptions are translated into these at the edge.

BusError
├── SubjectError        a subject token or subject string is not valid
├── BusClosedError      the Bus is not open (never opened, or closed)
├── BusConnectError     no NATS server answered at the given URL
├── BusTimeoutError     a request got no reply in time
├── ServerError         the embedded nats-server could not start or stop
└── RunLogError         the JetStream run log could not be read or written
"""

from __future__ import annotations

__all__ = [
    "BusClosedError",
    "BusConnectError",
    "BusError",
    "BusTimeoutError",
    "RunLogError",
    "ServerError",
    "SubjectError",
]


class BusError(Exception):
    """Root of every error raised by the bus package."""


class SubjectError(BusError, ValueError):
    """A subject or a subject token is malformed."""


class BusClosedError(BusError):
    """The bus was used while not open."""


class BusConnectError(BusError):
    """No NATS server could be reached."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(
            f"cannot reach NATS at {url}: {reason}. Is a nats-server running there? "
            "Without --nats, society starts its own embedded server."
        )


class BusTimeoutError(BusError, TimeoutError):
    """A request received no reply within its timeout."""


class ServerError(BusError):
    """The embedded nats-server failed."""


class RunLogError(BusError):
    """The run log (JetStream stream or JSONL file) failed."""
