"""Starting a container with one HTTP request on Docker's Unix socket, sent from the event loop.

The SDK's ``start`` holds a thread for the whole call (about 250 ms here), and a process
cannot exit while such a thread runs. Sent from the event loop, the request can be
abandoned once written: Docker finishes the start without its caller, and the container
then sees its attach socket closed, so its supervisor exits and Docker removes it. A pool
closing at the end of a run need not wait for the refills it had begun. Other daemon
addresses (TCP, TLS, SSH) use the SDK in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from urllib.parse import quote

import docker
import docker.errors
from docker.transport.unixconn import UnixHTTPAdapter

from sandbox.daemon import API_TIMEOUT_S

__all__ = ["StartCall"]

_NO_CONTENT = (204, 304)
"""Started, or already running."""


@dataclass
class StartCall:
    """One ``POST /containers/{id}/start``; ``sent`` is set once Docker has the request."""

    api: docker.APIClient
    container_id: str
    sent: asyncio.Event = field(default_factory=asyncio.Event)
    threaded: bool = False
    """The SDK's call in a thread: it cannot be abandoned."""

    async def run(self) -> None:
        """Start the container; raises docker.errors.APIError when Docker refuses."""
        adapter = self.api.get_adapter(self.api.base_url)
        if not isinstance(adapter, UnixHTTPAdapter):
            self.threaded = True
            await asyncio.to_thread(self.api.start, self.container_id)
            return
        path = f"/v{self.api.api_version}/containers/{quote(self.container_id)}/start"
        request = f"POST {path} HTTP/1.1\r\nHost: docker\r\nContent-Length: 0\r\n"
        request += "Connection: close\r\n\r\n"
        reader, writer = await asyncio.open_unix_connection(adapter.socket_path)
        try:
            writer.write(request.encode("ascii"))
            await writer.drain()
            self.sent.set()
            async with asyncio.timeout(API_TIMEOUT_S):  # as long as the SDK would wait
                status_line = await reader.readline()
                answer = await reader.read()  # headers and body, to EOF (Connection: close)
        except TimeoutError:
            msg = f"Docker did not answer a container start within {API_TIMEOUT_S} s"
            raise docker.errors.APIError(msg) from None
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        status = _status(status_line)
        if status not in _NO_CONTENT:
            body = answer.partition(b"\r\n\r\n")[2]
            msg = f"{status} starting the container: {_message(body)}"
            raise docker.errors.APIError(msg)


def _status(line: bytes) -> int:
    """The code of an HTTP status line (0 when there is none)."""
    parts = line.split()
    return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else 0


def _message(body: bytes) -> str:
    """Docker's error message from a (possibly chunked) JSON body, else the body's text."""
    text = body.decode("utf-8", "replace")
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        with contextlib.suppress(ValueError):
            found = json.loads(text[start : end + 1])
            if isinstance(found, dict) and "message" in found:
                return str(found["message"])
    return text.strip() or "no answer"
