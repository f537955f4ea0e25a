"""How this process reaches NATS: the URL (credentials may be in it), TLS files, and the
inbox prefix of the role it connects as (per-role permissions allow only that prefix).

TLS files come from arguments or, for `society run`, from the environment:
``SOCIETY_NATS_TLS_CA``, ``SOCIETY_NATS_TLS_CERT``, ``SOCIETY_NATS_TLS_KEY``. Credentials
for a server given with ``--nats`` come from a credential file (``--creds``), the URL
(``nats://user:password@host``), or ``SOCIETY_NATS_USER`` and ``SOCIETY_NATS_PASSWORD``.
"""

from __future__ import annotations

import dataclasses
import os

from bus import ConnectOptions
from bus.permissions import inbox_prefix

__all__ = [
    "ENV_PASSWORD",
    "ENV_TLS_CA",
    "ENV_TLS_CERT",
    "ENV_TLS_KEY",
    "ENV_USER",
    "connect_options",
]

ENV_TLS_CA = "SOCIETY_NATS_TLS_CA"
ENV_TLS_CERT = "SOCIETY_NATS_TLS_CERT"
ENV_TLS_KEY = "SOCIETY_NATS_TLS_KEY"
ENV_USER = "SOCIETY_NATS_USER"
ENV_PASSWORD = "SOCIETY_NATS_PASSWORD"


def connect_options(
    url: str,
    *,
    role: str | None = None,
    tls_ca: str | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> ConnectOptions:
    """Options for ``url`` (comma-separated servers) as ``role``, TLS when files are given;
    credentials in the URL win over the environment's."""
    options = ConnectOptions.from_url(
        url,
        tls_ca=tls_ca or os.environ.get(ENV_TLS_CA) or None,
        tls_cert=tls_cert or os.environ.get(ENV_TLS_CERT) or None,
        tls_key=tls_key or os.environ.get(ENV_TLS_KEY) or None,
        inbox_prefix=inbox_prefix(role) if role else "_INBOX",
    )
    user = os.environ.get(ENV_USER)
    if options.user is None and options.token is None and user:
        options = dataclasses.replace(
            options, user=user, password=os.environ.get(ENV_PASSWORD) or None
        )
    return options
