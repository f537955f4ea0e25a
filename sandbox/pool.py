"""The warm pool: ready containers handed out once each, replaced and destroyed in the background.

``acquire`` takes a ready container (or waits for one being started); ``release`` destroys a
used one in the background; the pool keeps its target of containers ready plus one per
waiting caller, so more concurrent executions than the target still proceed. A waiting
caller's container starts at once; replacements start, and used containers are destroyed,
``quiet_s`` after the first hand-out or release that calls for them: executions handed out
back to back then do not share the CPU with Docker starting and tearing down containers
(either keeps both cores of a small machine busy for a while). The target
starts at ``size`` and grows ahead of demand: each time executions drain the pool it keeps
one more ready, up to ``most``, and falls back to ``size`` once the pool has not been
drained for ``idle_s`` (back-to-back executions then find a warm container each); a pool
still warming up does not grow. When a start fails, the
oldest waiter gets the error and background warming pauses until a start succeeds, so a
broken daemon never makes the pool spin. ``close`` destroys every container it made: ready,
in use, and still starting (a start is cancelled, and removes what it made so far).
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
        most: int | None = None,
        idle_s: float = 120.0,
        quiet_s: float = 0.1,
    ) -> None:
        self._spawn = spawn
        self._retire = retire
        self._size = size
        self._most = max(size, most if most is not None else size)
        self._idle_s = idle_s
        self._quiet_s = quiet_s
        self._quiet_later: asyncio.TimerHandle | None = None
        self._used: list[T] = []
        """Released items whose retirement waits for the quiet moment."""
        self._target = size
        self._shrink_later: asyncio.TimerHandle | None = None
        self._ready: deque[T] = deque()
        self._in_use: set[T] = set()
        self._waiters: deque[asyncio.Future[T]] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self._spawns: set[asyncio.Task[None]] = set()
        self._spawning = 0
        self._caught_up = False
        """Ready reached the target since the last growth (only then can it grow again)."""
        self._paused = False
        self._closed = False
        self._changed = asyncio.Event()

    @property
    def ready(self) -> int:
        """Items ready to hand out now."""
        return len(self._ready)

    @property
    def target(self) -> int:
        """Items the pool keeps ready now (``size`` up to ``most``, with demand)."""
        return self._target

    async def start(self) -> None:
        """Start one item and wait for it (so a broken image fails here), then warm the rest."""
        item = await self._spawn()
        if self._size > 0:
            self._ready.append(item)
            self._caught_up = self.ready >= self._target
        else:
            self._track(self._retire(item))
        self._top_up(now=True)

    async def acquire(self) -> T:
        """A ready item, waiting for one to start if none is; raises the start's error."""
        while self._ready:
            item = self._ready.popleft()
            if item.alive:
                self._in_use.add(item)
                if not self._ready:
                    self._drained()
                self._top_up()
                return item
            self._track(self._retire(item))
        if self._closed:
            msg = "the sandbox pool is closed"
            raise SandboxClosed(msg)
        self._drained()
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
        """Retire a used item in the background (one task, one container), ``quiet_s`` later."""
        self._in_use.discard(item)
        if self._closed:
            self._track(self._retire(item))
            return
        self._used.append(item)
        self._when_quiet()

    async def wait_idle(self) -> None:
        """Wait until the pool is full (or paused by a failure) and no retirement is pending."""
        while not (
            self._closed
            or ((self._paused or self.ready >= self._target) and not self._tasks and not self._used)
        ):
            self._changed.clear()
            await self._changed.wait()

    async def close(self) -> None:
        """Fail the waiters, retire every item, and wait for all background work to end."""
        self._closed = True
        for timer in (self._shrink_later, self._quiet_later):
            if timer is not None:
                timer.cancel()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(SandboxClosed("the sandbox was closed while waiting"))
        for item in [*self._ready, *self._in_use, *self._used]:
            self._track(self._retire(item))
        self._used.clear()
        self._ready.clear()
        self._in_use.clear()
        for spawn in self._spawns:  # a start cancelled part-way retires what it made
            spawn.cancel()
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _top_up(self, *, now: bool = False) -> None:
        """Start a container for each waiting caller at once; the rest of the target
        ``quiet_s`` later (or ``now``)."""
        if self._closed:
            return
        waiting = sum(not waiter.done() for waiter in self._waiters)
        wanted = (0 if self._paused else self._target) + waiting
        while self.ready + self._spawning < (wanted if now else waiting):
            self._spawning += 1
            spawn = self._track(self._spawn_one())
            self._spawns.add(spawn)
            spawn.add_done_callback(self._spawns.discard)
        if self.ready + self._spawning < wanted:
            self._when_quiet()

    def _when_quiet(self) -> None:
        if self._quiet_later is None:
            self._quiet_later = asyncio.get_running_loop().call_later(self._quiet_s, self._quiet)

    def _quiet(self) -> None:
        """Retire the used items and start the replacements."""
        self._quiet_later = None
        for item in self._used:
            self._track(self._retire(item))
        self._used.clear()
        self._top_up(now=True)

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
            self._caught_up = self._caught_up or self.ready >= self._target
        self._top_up()

    def _drained(self) -> None:
        """Executions emptied the pool: keep one more ready (up to ``most``) for a while.

        Only a pool that had caught up with its target grows: one still warming up (just
        started, or refilling after the last growth) is slow, not too small, and starting
        more containers at once would only make each start slower."""
        if self._size == 0 or not self._caught_up:
            return
        self._caught_up = False
        self._target = min(self._most, self._target + 1)
        if self._shrink_later is not None:
            self._shrink_later.cancel()
        self._shrink_later = asyncio.get_running_loop().call_later(self._idle_s, self._shrink)

    def _shrink(self) -> None:
        """Not drained for a while: back to ``size`` ready, retiring the surplus."""
        self._shrink_later = None
        self._target = self._size
        while len(self._ready) > self._target:
            self._track(self._retire(self._ready.pop()))
        self._changed.set()

    def _next_waiter(self) -> asyncio.Future[T] | None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                return waiter
        return None

    def _track(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._changed.set()
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("sandbox.pool_task_failed", error=repr(exc))
