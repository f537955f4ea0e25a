"""`ConnectOptions`: how to reach and authenticate with NATS (servers, credentials, TLS).

Credentials written in a URL move into the options, so no URL that reaches a message or
a log carries a secret.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["ConnectOptions"]


@dataclass(frozen=True)
class ConnectOptions:
    """How to reach and authenticate with NATS."""

    servers: tuple[str, ...] = ("nats://127.0.0.1:4222",)
    user: str | None = None
    password: str | None = None
    token: str | None = None
    tls_ca: str | None = None
    """CA bundle to verify the server (enables TLS)."""
    tls_cert: str | None = None
    tls_key: str | None = None
    connect_timeout: float = 5.0
    inbox_prefix: str = "_INBOX"
    """Replies and JetStream deliveries arrive under ``<prefix>.``; a per-role prefix lets
    server permissions keep roles out of each other's inboxes."""
    publish_timeout_s: float = 60.0
    """How long a durable publish keeps trying (e.g. while a server restarts)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> ConnectOptions:
        """Options for a comma-separated list of server URLs.

        Credentials in a URL (``nats://user:password@host:4222``, or ``nats://token@host``)
        move into the options, so no URL printed in a message or log carries a secret.
        """
        servers: list[str] = []
        for raw in url.split(","):
            server, creds = _split_credentials(raw.strip())
            if not server:
                continue
            servers.append(server)
            if creds is not None:
                user, password = creds
                if password is None:
                    kwargs.setdefault("token", user)
                else:
                    kwargs.setdefault("user", user)
                    kwargs.setdefault("password", password)
        return cls(servers=tuple(servers), **kwargs)

    def ssl_context(self) -> ssl.SSLContext | None:
        """A client TLS context when a CA or client certificate is configured."""
        if not (self.tls_ca or self.tls_cert):
            return None
        ctx = ssl.create_default_context(cafile=self.tls_ca)
        if self.tls_cert:
            ctx.load_cert_chain(self.tls_cert, self.tls_key)
        return ctx


def _split_credentials(url: str) -> tuple[str, tuple[str, str | None] | None]:
    """``(url without credentials, (user or token, password or None) or None)``."""
    if "@" not in url:
        return url, None
    parts = urlsplit(url if "://" in url else f"nats://{url}")
    if parts.username is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    password = None if parts.password is None else unquote(parts.password)
    return urlunsplit(parts._replace(netloc=netloc)), (unquote(parts.username), password)
