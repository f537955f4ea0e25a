"""The supervisor's side of the protocol (messages over stdin/stdout) and its output capture.

Part of the supervisor: standard library only, runs on the image's python3 (3.9 or newer);
``sandbox.protocol`` holds the same framing on the host's side (a test checks they agree).
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

__all__ = ["CHUNK", "PREFIX", "Capture", "read_exactly", "receive", "send", "write_all"]

PREFIX = struct.Struct(">II")
"""Each message: header length, blob length (big-endian u32), JSON header, raw blob."""

CHUNK = 1 << 16
TAIL_SHARE = 4
"""A capped stream keeps its first 3/4 and last 1/4 (tracebacks are at the end)."""


def send(head: dict[str, Any], blob: bytes = b"", fd: int = 1) -> None:
    """Write one message (to stdout unless told otherwise).

    Text that is not valid UTF-8 (a lone surrogate from a file name) becomes ``?`` rather
    than failing the whole answer; names are escaped before they get here.
    """
    raw = json.dumps(head, ensure_ascii=False).encode("utf-8", "replace")
    write_all(fd, PREFIX.pack(len(raw), len(blob)) + raw)
    if blob:
        write_all(fd, blob)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_exactly(fd: int, size: int) -> bytes | None:
    """Read ``size`` bytes from ``fd``; None on EOF before the end."""
    parts: list[bytes] = []
    left = size
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def receive(max_blob: int, fd: int = 0) -> tuple[dict[str, Any], bytes] | None:
    """Read one message (from stdin unless told otherwise); None when the host has gone."""
    prefix = read_exactly(fd, PREFIX.size)
    if prefix is None:
        return None
    head_len, blob_len = PREFIX.unpack(prefix)
    if head_len > max_blob + (1 << 20) or blob_len > max_blob:
        msg = f"message too large ({head_len} + {blob_len} bytes)"
        raise ValueError(msg)
    raw = read_exactly(fd, head_len)
    blob = read_exactly(fd, blob_len)
    if raw is None or blob is None:
        return None
    head: dict[str, Any] = json.loads(raw)
    return head, blob


class Capture:
    """Keeps the head and the tail of a stream within ``cap`` bytes, counting the rest."""

    def __init__(self, cap: int) -> None:
        self.tail_cap = cap // TAIL_SHARE
        self.head_cap = cap - self.tail_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Take the next chunk of the stream."""
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.tail_cap + CHUNK:
                del self.tail[: len(self.tail) - self.tail_cap]

    def text(self) -> tuple[str, bool]:
        """The captured text and whether anything was cut."""
        tail = bytes(self.tail[-self.tail_cap :]) if self.tail_cap else b""
        cut = self.total - len(self.head) - len(tail)
        if cut <= 0:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace"), False
        marker = f"\n[... {cut} bytes cut by the sandbox ...]\n"
        return self.head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace"), True
