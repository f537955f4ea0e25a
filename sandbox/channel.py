"""The container's attached stdin/stdout/stderr as one async channel to its supervisor.

Without a TTY, Docker multiplexes the container's stdout and stderr on the attach connection
in frames (``>BxxxI``: stream 1 or 2, payload length); stdin is sent raw. The channel
reassembles stdout into the supervisor's protocol messages and keeps the tail of stderr for
error reports. The attach socket is taken over from the docker SDK (its file descriptor is
detached) so nothing else can ever reuse the connection, then driven by asyncio directly.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import struct
from typing import Any

from sandbox.errors import SandboxFailure
from sandbox.protocol import PREFIX, Header, decode_header

__all__ = ["Channel", "open_channel"]

_FRAME = struct.Struct(">BxxxI")
_STDOUT, _STDERR = 1, 2
_DIAGNOSTICS = 4096
"""Bytes of the supervisor's stderr kept for error messages."""


class Channel:
    """Messages to and from one container's supervisor."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._stdout = bytearray()
        self._stderr = bytearray()

    @property
    def alive(self) -> bool:
        """False once the container closed its end (it stopped) or we closed ours."""
        return not (self._reader.at_eof() or self._writer.is_closing())

    @property
    def diagnostics(self) -> str:
        """The end of what the supervisor wrote to stderr."""
        return self._stderr.decode("utf-8", "replace").strip()

    async def send(self, *messages: bytes) -> None:
        """Write messages to the supervisor's stdin."""
        try:
            for message in messages:
                self._writer.write(message)
            await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            msg = f"cannot write to the container: {exc}"
            raise self._failure(msg) from exc

    async def receive(self, max_header: int, max_blob: int) -> tuple[Header, bytes]:
        """Read one message, refusing sizes over the limits."""
        head_len, blob_len = PREFIX.unpack(await self._read(PREFIX.size))
        if head_len > max_header or blob_len > max_blob:
            msg = f"the supervisor sent an oversized message ({head_len} + {blob_len} bytes)"
            raise self._failure(msg)
        head = decode_header(await self._read(head_len))
        return head, await self._read(blob_len)

    def close(self) -> None:
        """Close the connection (the supervisor sees EOF on stdin and exits)."""
        self._writer.close()

    async def _read(self, size: int) -> bytes:
        while len(self._stdout) < size:
            await self._frame()
        data = bytes(self._stdout[:size])
        del self._stdout[:size]
        return data

    async def _frame(self) -> None:
        try:
            stream, length = _FRAME.unpack(await self._reader.readexactly(_FRAME.size))
            payload = await self._reader.readexactly(length)
        except asyncio.IncompleteReadError as exc:
            msg = "the container closed the connection before the supervisor answered"
            raise self._failure(msg) from exc
        except (ConnectionError, OSError) as exc:
            msg = f"lost the connection to the container: {exc}"
            raise self._failure(msg) from exc
        if stream == _STDOUT:
            self._stdout += payload
        elif stream == _STDERR:
            self._stderr += payload
            del self._stderr[:-_DIAGNOSTICS]

    def _failure(self, message: str) -> SandboxFailure:
        last = self.diagnostics
        return SandboxFailure(f"{message}; the supervisor's stderr: {last}" if last else message)


async def open_channel(attached: Any) -> Channel:
    """Wrap what ``APIClient.attach_socket`` returned in a Channel, owning its socket."""
    sock = getattr(attached, "_sock", attached)
    if isinstance(sock, ssl.SSLSocket) or not isinstance(sock, socket.socket):
        msg = f"cannot drive an attach connection of type {type(sock).__name__} (TLS or SSH)"
        raise SandboxFailure(msg)
    owned = socket.socket(sock.family, sock.type, sock.proto, fileno=sock.detach())
    reader, writer = await asyncio.open_connection(sock=owned, limit=1 << 20)
    return Channel(reader, writer)
