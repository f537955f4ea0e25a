"""Errors of the bus package; nats-py's exceptions are translated into these at the edge.

BusError
├── SubjectError        a subject token or subject string is not valid
├── BusClosedError      the Bus is not open (never opened, or closed)
├── BusConnectError     no NATS server answered at the given URL
├── BusPermissionError  the server refused a publish or subscribe (per-user permissions)
├── ServerError         the embedded nats-server could not start or stop
└── RunLogError         the JetStream run log could not be read or written
"""

from __future__ import annotations

__all__ = [
    "BusClosedError",
    "BusConnectError",
    "BusError",
    "BusPermissionError",
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

    def __init__(self, url: str, reason: str, user: str | None = None) -> None:
        self.url = url
        self.reason = reason
        self.needs_credentials = "authorization violation" in reason.lower()
        if self.needs_credentials:
            who = f"user {user!r} was refused" if user else "no credentials were given"
            text = (
                f"the NATS server at {url} needs credentials ({who}: {reason}). Give a "
                "credential file with --creds FILE (a run's runs/<id>/creds/*.json, or one "
                "from `society invite`), user:password in the URL, or SOCIETY_NATS_USER and "
                "SOCIETY_NATS_PASSWORD"
            )
        else:
            text = (
                f"cannot reach NATS at {url}: {reason}. Is a nats-server running there? "
                "Without --nats, society starts its own embedded server."
            )
        super().__init__(text)


class BusPermissionError(BusError):
    """The server refused to let this connection's user publish or subscribe there."""

    def __init__(self, operation: str, subject: str, bus: str) -> None:
        self.operation = operation
        self.subject = subject
        self.bus = bus
        super().__init__(
            f"NATS refused {operation} {subject!r} for {bus}: this user is not allowed to "
            "(per-role permissions, see `society nats-config`)"
        )


class ServerError(BusError):
    """The embedded nats-server failed."""


class RunLogError(BusError):
    """The run log (JetStream stream or JSONL file) failed."""

    unavailable: bool = False
    """JetStream did not answer this user (yet): a user the server is still loading."""
