"""How this process reaches NATS: the URL (credentials may be in it), TLS files, and the
inbox prefix of the role it connects as (per-role permissions allow only that prefix).

TLS files come from arguments or, for `society run`, from the environment:
``SOCIETY_NATS_TLS_CA``, ``SOCIETY_NATS_TLS_CERT``, ``SOCIETY_NATS_TLS_KEY``.
"""

from __future__ import annotations

import os

from bus import ConnectOptions
from bus.permissions import inbox_prefix

__all__ = ["ENV_TLS_CA", "ENV_TLS_CERT", "ENV_TLS_KEY", "connect_options"]

ENV_TLS_CA = "SOCIETY_NATS_TLS_CA"
ENV_TLS_CERT = "SOCIETY_NATS_TLS_CERT"
ENV_TLS_KEY = "SOCIETY_NATS_TLS_KEY"


def connect_options(
    url: str,
    *,
    role: str | None = None,
    tls_ca: str | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> ConnectOptions:
    """Options for ``url`` (comma-separated servers) as ``role``, TLS when files are given."""
    return ConnectOptions.from_url(
        url,
        tls_ca=tls_ca or os.environ.get(ENV_TLS_CA) or None,
        tls_cert=tls_cert or os.environ.get(ENV_TLS_CERT) or None,
        tls_key=tls_key or os.environ.get(ENV_TLS_KEY) or None,
        inbox_prefix=inbox_prefix(role) if role else "_INBOX",
    )
