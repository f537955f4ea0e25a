"""The warm pool: ready containers handed out once each, replaced and destroyed in the background.

``acquire`` takes a ready container (or waits for one being started); ``release`` destroys a
used one in the background; the pool keeps ``size`` containers ready plus one per waiting
caller, so more concurrent executions than ``size`` still proceed. When a start fails, the
oldest waiter gets the error and background warming pauses until a start succeeds, so a
broken daemon never makes the pool spin. ``close`` destroys every container it made: ready,
in use, and still starting.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

import structlog

from sandbox.errors import SandboxClosed, SandboxError

__all__ = ["Pool", "PoolItem"]


class PoolItem(Protocol):
    """What the pool holds: anything that knows whether it is still alive."""

    @property
    def alive(self) -> bool: ...


T = TypeVar("T", bound=PoolItem)
log = structlog.get_logger("sandbox")


class Pool(Generic[T]):
    """Keeps ``size`` items ready; each item is used once and then retired."""

    def __init__(
        self,
        spawn: Callable[[], Awaitable[T]],
        retire: Callable[[T], Coroutine[Any, Any, None]],
        size: int,
    ) -> None:
        self._spawn = spawn
        self._retire = retire
        self._size = size
        self._ready: deque[T] = deque()
        self._in_use: set[T] = set()
        self._waiters: deque[asyncio.Future[T]] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self._spawning = 0
        self._paused = False
        self._closed = False
        self._changed = asyncio.Event()

    @property
    def ready(self) -> int:
        """Items ready to hand out now."""
        return len(self._ready)

    async def start(self) -> None:
        """Start one item and wait for it (so a broken image fails here), then warm the rest."""
        item = await self._spawn()
        if self._size > 0:
            self._ready.append(item)
        else:
            self._track(self._retire(item))
        self._top_up()

    async def acquire(self) -> T:
        """A ready item, waiting for one to start if none is; raises the start's error."""
        while self._ready:
            item = self._ready.popleft()
            if item.alive:
                self._in_use.add(item)
                self._top_up()
                return item
            self._track(self._retire(item))
        if self._closed:
            msg = "the sandbox pool is closed"
            raise SandboxClosed(msg)
        waiter: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._top_up()
        try:
            item = await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self.release(waiter.result())  # handed over just as the caller gave up
            raise
        if self._closed:
            self._track(self._retire(item))
            msg = "the sandbox was closed while waiting"
            raise SandboxClosed(msg)
        self._in_use.add(item)
        return item

    def release(self, item: T) -> None:
        """Retire a used item in the background (one task, one container)."""
        self._in_use.discard(item)
        self._track(self._retire(item))

    async def wait_idle(self) -> None:
        """Wait until the pool is full (or paused by a failure) and no retirement is pending."""
        while not (
            self._closed or ((self._paused or self.ready >= self._size) and not self._tasks)
        ):
            self._changed.clear()
            await self._changed.wait()

    async def close(self) -> None:
        """Fail the waiters, retire every item, and wait for all background work to end."""
        self._closed = True
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(SandboxClosed("the sandbox was closed while waiting"))
        for item in [*self._ready, *self._in_use]:
            self._track(self._retire(item))
        self._ready.clear()
        self._in_use.clear()
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _top_up(self) -> None:
        if self._closed:
            return
        waiting = sum(not waiter.done() for waiter in self._waiters)
        wanted = (0 if self._paused else self._size) + waiting
        while self.ready + self._spawning < wanted:
            self._spawning += 1
            self._track(self._spawn_one())

    async def _spawn_one(self) -> None:
        try:
            item = await self._spawn()
        except SandboxError as exc:
            self._spawning -= 1
            self._paused = True
            waiter = self._next_waiter()
            if waiter is not None:
                waiter.set_exception(exc)
            self._top_up()
            return
        except BaseException:
            self._spawning -= 1
            raise
        self._spawning -= 1
        self._paused = False
        if self._closed:
            await self._retire(item)
            return
        waiter = self._next_waiter()
        if waiter is not None:
            waiter.set_result(item)
        else:
            self._ready.append(item)
        self._top_up()

    def _next_waiter(self) -> asyncio.Future[T] | None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                return waiter
        return None

    def _track(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._changed.set()
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("sandbox.pool_task_failed", error=repr(exc))
