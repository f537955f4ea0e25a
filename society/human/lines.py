"""Lines the person types, delivered to asyncio.

A daemon thread reads the stream, so a terminal, a pipe or a pseudo-terminal all work
and a read blocked at exit never holds the process up. End of input (Ctrl-D, a closed
pipe) ends the iteration.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import AsyncIterator
from typing import TextIO

__all__ = ["read_lines"]


async def read_lines(stream: TextIO | None = None) -> AsyncIterator[str]:
    """Yield each line of ``stream`` (stdin by default) without its newline."""
    source = sys.stdin if stream is None else stream
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        try:
            for line in iter(source.readline, ""):
                loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
        except (OSError, ValueError):  # closed under us
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens any more
                loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="human-input", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line
