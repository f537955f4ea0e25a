"""The warm pool's logic with in-memory items (the Docker-backed pool is tested elsewhere)."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from sandbox import SandboxClosed, SandboxFailure
from sandbox.pool import Pool


class Item:
    """A pool item: numbered, alive until retired or killed."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.alive = True


class Factory:
    """Spawns items (or fails on demand) and records retirements."""

    def __init__(self) -> None:
        self.numbers = itertools.count()
        self.fail: Exception | None = None
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()
        self.retired: list[int] = []
        self.spawned = 0

    async def spawn(self) -> Item:
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        self.spawned += 1
        return Item(next(self.numbers))

    async def retire(self, item: Item) -> None:
        item.alive = False
        self.retired.append(item.number)


async def test_keeps_size_ready_and_replaces_what_is_taken() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2)
    await pool.start()
    await pool.wait_idle()
    assert pool.ready == 2
    item = await pool.acquire()
    pool.release(item)
    await pool.wait_idle()
    assert pool.ready == 2
    assert factory.retired == [item.number]
    await pool.close()
    assert sorted(factory.retired) == list(range(factory.spawned))


async def test_more_callers_than_size_all_get_their_own_item() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=1)
    await pool.start()
    items = await asyncio.gather(*(pool.acquire() for _ in range(5)))
    assert len({item.number for item in items}) == 5
    await pool.close()
    assert all(not item.alive for item in items)


async def test_a_failed_start_reaches_the_waiter_and_pauses_warming() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2)
    await pool.start()
    await pool.wait_idle()
    for _ in range(2):
        pool.release(await pool.acquire())
    factory.fail = SandboxFailure("daemon gone")
    await pool.wait_idle()  # replacements failed: paused rather than spinning
    spawned = factory.spawned
    with pytest.raises(SandboxFailure, match="daemon gone"):
        await pool.acquire()
    factory.fail = None
    item = await pool.acquire()  # a success resumes warming
    await pool.wait_idle()
    assert pool.ready == 2
    assert factory.spawned == spawned + 3
    pool.release(item)
    await pool.close()


async def test_dead_ready_items_are_skipped() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2)
    await pool.start()
    await pool.wait_idle()
    first = await pool.acquire()
    pool.release(first)
    await pool.wait_idle()
    for item in list(pool._ready):
        item.alive = False
    fresh = await pool.acquire()
    assert fresh.alive
    pool.release(fresh)
    await pool.close()


async def test_close_fails_waiters_and_retires_everything() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=0)
    await pool.start()
    factory.gate, factory.started = asyncio.Event(), asyncio.Event()
    waiter = asyncio.create_task(pool.acquire())
    await factory.started.wait()  # the waiter is registered and its start is under way
    closing = asyncio.create_task(pool.close())
    with pytest.raises(SandboxClosed):
        await waiter
    factory.gate.set()
    await closing
    assert factory.spawned == len(factory.retired)
    with pytest.raises(SandboxClosed):
        await pool.acquire()


async def test_a_cancelled_waiter_leaks_nothing() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=0)
    await pool.start()
    factory.gate, factory.started = asyncio.Event(), asyncio.Event()
    waiter = asyncio.create_task(pool.acquire())
    await factory.started.wait()
    waiter.cancel()
    factory.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await pool.wait_idle()
    await pool.close()
    assert factory.spawned == len(factory.retired)


async def test_a_drained_pool_keeps_more_ready_then_shrinks_back() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2, most=3, idle_s=600)
    await pool.start()
    await pool.wait_idle()
    burst = [await pool.acquire() for _ in range(2)]  # back to back: the pool is drained...
    assert pool.target == 3  # ...so it keeps one more ready from now on
    for item in burst:
        pool.release(item)
    await pool.wait_idle()
    assert pool.ready == 3
    burst = [await pool.acquire() for _ in range(3)]  # the next burst of three is all warm
    assert pool.target == 3  # drained again, but it grows no further than most
    for item in burst:
        pool.release(item)
    await pool.wait_idle()
    timer = pool._shrink_later  # not drained for idle_s, this timer...
    assert timer is not None
    timer.cancel()
    pool._shrink()  # ...brings it back to size and retires the surplus
    await pool.wait_idle()
    assert pool.ready == 2
    await pool.close()
    assert sorted(factory.retired) == list(range(factory.spawned))


async def test_a_pool_still_warming_up_does_not_grow() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2, most=4, idle_s=600)
    await pool.start()  # the first start goes through...
    factory.gate = asyncio.Event()  # ...the warming one (not run yet) waits
    first = await pool.acquire()  # empties a pool that never was full: slow, not too small
    assert pool.target == 2
    factory.gate.set()
    await pool.wait_idle()
    assert pool.ready == 2
    burst = [await pool.acquire() for _ in range(2)]  # a full pool drained: now it grows
    assert pool.target == 3
    for item in [first, *burst]:
        pool.release(item)
    await pool.close()
    assert sorted(factory.retired) == list(range(factory.spawned))


async def test_replacements_and_retirements_wait_for_a_quiet_moment() -> None:
    factory = Factory()
    pool = Pool(factory.spawn, factory.retire, size=2, quiet_s=600)
    await pool.start()  # warming at the start does not wait
    await pool.wait_idle()
    spawned = factory.spawned
    burst = []
    for _ in range(2):  # back to back: each execution has the machine to itself
        item = await pool.acquire()
        pool.release(item)
        burst.append(item.number)
        for _ in range(5):
            await asyncio.sleep(0)  # let any background start or retirement run
    assert factory.spawned == spawned and factory.retired == []
    assert all(item.alive for item in pool._used)
    waiter = await pool.acquire()  # a caller who would wait gets a start at once
    assert factory.spawned == spawned + 1
    timer = pool._quiet_later  # the quiet moment (600 s away) comes now:
    assert timer is not None
    timer.cancel()
    pool._quiet()  # the used ones go, and the pool fills up again
    await pool.wait_idle()
    assert factory.retired == burst
    assert pool.ready == 2
    pool.release(waiter)
    await pool.close()
    assert sorted(factory.retired) == list(range(factory.spawned))
