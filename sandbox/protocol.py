"""The host's side of the supervisor protocol: length-prefixed JSON headers with raw blobs.

One message is ``>II`` (header length, blob length), a UTF-8 JSON header with a ``kind``, and
the blob. Host to supervisor: ``file`` (name, mode; blob = content) any number of times, then
``run`` (timeout_s; blob = the code). Supervisor to host: ``ready`` once started, then
``file`` for each file the code wrote, then ``result`` (or ``error``). ``supervisor.py`` holds
the same format on the container's side; a test checks the two agree.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

from sandbox.errors import SandboxFailure

__all__ = ["PREFIX", "Header", "decode_header", "encode"]

PREFIX = struct.Struct(">II")

Header = dict[str, Any]


def encode(head: Mapping[str, object], blob: bytes = b"") -> bytes:
    """One message as bytes."""
    raw = json.dumps(head, ensure_ascii=False).encode()
    return PREFIX.pack(len(raw), len(blob)) + raw + blob


def decode_header(raw: bytes) -> Header:
    """Parse a header, insisting on a JSON object with a string ``kind``."""
    try:
        head = json.loads(raw)
    except ValueError as exc:
        msg = f"the supervisor sent a header that is not JSON: {exc}"
        raise SandboxFailure(msg) from exc
    if not isinstance(head, dict) or not isinstance(head.get("kind"), str):
        msg = f"the supervisor sent a header without a kind: {raw[:200]!r}"
        raise SandboxFailure(msg)
    return head
