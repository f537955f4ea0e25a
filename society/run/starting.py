"""A code runner that starts while the run gets going (issue 18: startup overlaps).

Starting the sandbox pool waits for Docker to create and start a container (a third of a
second to seconds); the planner's first answers do not need it. `StartingRunner` enters
the runner's context in the background: an execution waits for the start, and the run
stops with the start's error (Docker unreachable, image missing) as soon as it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from roles.execution import CodeRunner
from sandbox.result import ExecutionResult

__all__ = ["StartingRunner", "failed", "unless_failed"]

T = TypeVar("T")


class StartingRunner:
    """A `CodeRunner` whose context (``make``) is being entered in the background."""

    def __init__(self, make: AbstractAsyncContextManager[CodeRunner]) -> None:
        self._make = make
        self._entered = False
        self._closing: asyncio.Task[None] | None = None
        self.start = asyncio.get_running_loop().create_task(self._enter(), name="code runner")
        """The start: done when the runner is ready, or failed with the reason."""

    async def _enter(self) -> CodeRunner:
        runner = await self._make.__aenter__()
        self._entered = True
        return runner

    async def execute(
        self, code: str, files: Mapping[str, bytes] | None = None, timeout_s: float | None = None
    ) -> ExecutionResult:
        """Wait for the start, then run ``code`` (raises the start's error if it failed)."""
        runner = await asyncio.shield(self.start)
        return await runner.execute(code, files, timeout_s)

    def begin_close(self) -> None:
        """Start closing now (the run is over); `close` waits until it is done."""
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close())

    async def close(self) -> None:
        """Stop a start still under way, or leave the runner's context (once)."""
        self.begin_close()
        assert self._closing is not None
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        if not self.start.done():
            self.start.cancel()
        with contextlib.suppress(BaseException):
            await self.start
        if self._entered:
            await self._make.__aexit__(None, None, None)


def failed(start: asyncio.Task[CodeRunner] | None) -> bool:
    """Whether ``start`` is over and raised."""
    return (
        start is not None
        and start.done()
        and not start.cancelled()
        and start.exception() is not None
    )


async def unless_failed(work: Awaitable[T], start: asyncio.Task[CodeRunner] | None) -> T:
    """Await ``work``; if ``start`` fails first, cancel the work and raise the start's error."""
    if start is None:
        return await work
    job = asyncio.ensure_future(work)
    try:
        await asyncio.wait({job, start}, return_when=asyncio.FIRST_COMPLETED)
        if failed(start) and not job.done():
            job.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await job
            await start  # raises the start's error
        return await job
    finally:
        if not job.done():
            job.cancel()
