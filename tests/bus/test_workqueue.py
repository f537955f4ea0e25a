"""Work queues over a real nats-server: one worker per message, heartbeats, redelivery
after a silent worker, hand-back on shutdown, dead letter after too many deliveries, and
stored publishes that a retry does not duplicate."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from bus import Bus, Delivery, DeliverySettings, Envelope, QueueSpec, WorkQueue, runlog, subjects
from bus.payloads import DeadLetter, TaskAssignment, TaskSpec
from bus.runlog import queue_stream
from bus.subjects import Channel
from bus.workqueue import delete_run_queues, ensure_queue

from .test_pulling import request_on_server

pytestmark = [pytest.mark.nats, pytest.mark.timeout(30)]

SPEC = QueueSpec.tasks("coder", parallel=1)


def assignment(task_id: str) -> TaskAssignment:
    return TaskAssignment(task=TaskSpec(id=task_id, role="coder", description="d"), goal="g")


@pytest.fixture
async def publisher(nats_url: str, run_id: str) -> AsyncIterator[Bus]:
    async with Bus(nats_url, name="manager", durable=True) as bus:
        await runlog.ensure_stream(bus)
        yield bus
        await delete_run_queues(bus, run_id)


class Worker:
    """A work queue whose handler records what it got and waits until released."""

    def __init__(
        self,
        bus: Bus,
        run_id: str,
        settings: DeliverySettings,
        arrived: asyncio.Event | None = None,
    ) -> None:
        self.queue = WorkQueue(bus, run_id, SPEC, settings)
        self.got: list[tuple[str, int]] = []
        self.arrived = arrived or asyncio.Event()
        self.release = asyncio.Event()
        self.exhausted: list[Delivery] = []
        self.gave_up = asyncio.Event()

    async def handle(self, delivery: Delivery) -> None:
        self.got.append((delivery.envelope.task_id or "", delivery.deliveries))
        self.arrived.set()
        await self.release.wait()

    async def on_exhausted(self, delivery: Delivery) -> None:
        self.exhausted.append(delivery)
        self.gave_up.set()

    async def start(self) -> Worker:
        await self.queue.start(self.handle, self.on_exhausted)
        return self


async def settled(*workers: Worker, timeout: float = 10.0) -> None:
    """Wait (bounded) until the workers have acked or dropped what they hold."""
    async with asyncio.timeout(timeout):
        for w in workers:
            await w.queue.idle()


async def pending(bus: Bus, run_id: str) -> tuple[int, int]:
    """(messages out with a worker, messages not yet delivered) of the coder queue, once
    the server has taken in the acks sent so far (acks are fire-and-forget: allow 1 s)."""
    name = subjects.consumer_name(run_id, SPEC.name)
    for _ in range(50):
        info = await bus.js.consumer_info(queue_stream(SPEC.name), name)
        counts = (info.num_ack_pending or 0, info.num_pending or 0)
        if counts == (0, 0):
            break
        await asyncio.sleep(0.02)
    return counts


async def test_each_task_goes_to_one_free_worker_and_is_acked(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=30)
    async with Bus(nats_url, name="a") as a_bus, Bus(nats_url, name="b") as b_bus:
        a = await Worker(a_bus, run_id, settings).start()
        await publisher.send(run_id, "manager/0", assignment("t1"), task_id="t1")
        await a.arrived.wait()
        b = await Worker(b_bus, run_id, settings).start()
        await publisher.send(run_id, "manager/0", assignment("t2"), task_id="t2")
        await b.arrived.wait()  # a is busy (one slot), so t2 went to b
        a.release.set()
        b.release.set()
        await settled(a, b)
        assert a.got == [("t1", 1)] and b.got == [("t2", 1)]
        assert await pending(publisher, run_id) == (0, 0)
        await a.queue.stop()
        await b.queue.stop()


async def test_a_silent_worker_loses_its_task_to_another_after_the_ack_wait(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=0.5)
    name = await ensure_queue(publisher, run_id, SPEC, settings)
    async with Bus(nats_url, name="dead") as dead, Bus(nats_url, name="alive") as alive:
        # A worker that takes the task and then says nothing (as if it were killed).
        silent = await dead.js.pull_subscribe_bind(name, stream=queue_stream(SPEC.name))
        await publisher.send(run_id, "manager/0", assignment("t1"), task_id="t1")
        [taken] = await silent.fetch(1, timeout=5)
        assert taken.metadata.num_delivered == 1
        worker = await Worker(alive, run_id, settings).start()
        worker.release.set()
        await worker.arrived.wait()
        assert worker.got == [("t1", 2)]
        await worker.queue.stop()


async def test_heartbeats_keep_a_long_task_with_its_worker(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=1.0)
    arrived = asyncio.Event()
    async with Bus(nats_url, name="a") as a_bus, Bus(nats_url, name="b") as b_bus:
        a = await Worker(a_bus, run_id, settings, arrived).start()
        b = await Worker(b_bus, run_id, settings, arrived).start()
        await publisher.send(run_id, "manager/0", assignment("long"), task_id="long")
        await arrived.wait()
        await asyncio.sleep(3.0)  # the work itself: three ack waits long
        assert a.got + b.got == [("long", 1)]  # never redelivered while heartbeating
        a.release.set()
        b.release.set()
        await settled(a, b)
        assert await pending(publisher, run_id) == (0, 0)
        await a.queue.stop()
        await b.queue.stop()


async def test_a_shutdown_hands_the_task_back_at_once(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=30)  # far longer than this test may take
    async with Bus(nats_url, name="a") as a_bus, Bus(nats_url, name="b") as b_bus:
        a = await Worker(a_bus, run_id, settings).start()
        await publisher.send(run_id, "manager/0", assignment("t1"), task_id="t1")
        await a.arrived.wait()
        b = await Worker(b_bus, run_id, settings).start()
        await a.queue.stop()  # cancelled mid-task: nak, not a 30 s wait
        async with asyncio.timeout(10):
            await b.arrived.wait()
        assert b.got == [("t1", 2)]
        b.release.set()
        await b.queue.stop()


async def test_after_max_deliveries_the_task_is_dead_lettered_and_reported(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=0.3, max_deliveries=2)
    name = await ensure_queue(publisher, run_id, SPEC, settings)
    letters: list[Envelope] = []
    lettered = asyncio.Event()

    async def on_letter(env: Envelope) -> None:
        letters.append(env)
        lettered.set()

    await publisher.subscribe(subjects.subject(run_id, Channel.DEAD_LETTER), on_letter)
    await publisher.flush()
    async with Bus(nats_url, name="crashy") as crashy, Bus(nats_url, name="last") as last:
        silent = await crashy.js.pull_subscribe_bind(name, stream=queue_stream(SPEC.name))
        mid = await publisher.send(run_id, "manager/0", assignment("t1"), task_id="t1")
        for n in (1, 2):  # two workers in a row die with it
            [taken] = await silent.fetch(1, timeout=5)
            assert taken.metadata.num_delivered == n
        worker = await Worker(last, run_id, settings).start()
        async with asyncio.timeout(10):
            await worker.gave_up.wait()
            await lettered.wait()
        assert worker.got == []  # not handled a third time
        assert worker.exhausted[0].deliveries == 3
        letter = letters[0]
        assert isinstance(letter.payload, DeadLetter)
        assert "delivered 2 times and never finished" in letter.payload.error
        assert letter.parent_id == mid and letter.task_id == "t1"
        await settled(worker)
        await worker.queue.stop()
    assert await pending(publisher, run_id) == (0, 0)


async def test_a_retried_stored_publish_is_kept_once(publisher: Bus, run_id: str) -> None:
    env = Envelope.new(run_id, "manager/0", assignment("t1"), task_id="t1")
    for _ in range(3):  # as a retry after a lost ack would
        await publisher.publish(env)
    records = await runlog.fetch_run(publisher, run_id)
    assert [r.envelope.id for r in records if r.envelope] == [env.id]


async def test_a_queue_whose_consumer_was_deleted_stops_pulling(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    settings = DeliverySettings(ack_wait_s=30, poll_s=60)
    async with Bus(nats_url, name="a") as bus:
        worker = await Worker(bus, run_id, settings).start()
        name = subjects.consumer_name(run_id, SPEC.name)
        stream = queue_stream(SPEC.name)
        await request_on_server(publisher.js, stream, name)
        await delete_run_queues(publisher, run_id)
        pump = worker.queue._pump_task
        assert pump is not None
        await asyncio.wait_for(pump, 20)  # told at once, not at the request's expiry
        await worker.queue.stop()


async def test_a_free_slot_takes_the_next_task_when_every_request_is_spent(
    nats_url: str, run_id: str, publisher: Bus
) -> None:
    """Eight slots ask in steps of two while a request is open; a task that spends the last
    request leaves a slot free, and that slot asks at once (not at the next poll)."""
    settings = DeliverySettings(ack_wait_s=30, poll_s=60)
    spec = QueueSpec.tasks("coder", parallel=8)
    got: list[str] = []
    arrived = asyncio.Event()
    releases: dict[str, asyncio.Event] = {}

    async def handle(delivery: Delivery) -> None:
        task = delivery.envelope.task_id or ""
        releases[task] = asyncio.Event()
        got.append(task)
        arrived.set()
        await releases[task].wait()

    async def until(n: int) -> None:
        async with asyncio.timeout(20):
            while len(got) < n:
                arrived.clear()
                await arrived.wait()

    async with Bus(nats_url, name="w") as bus:
        queue = WorkQueue(bus, run_id, spec, settings)
        await queue.start(handle)
        for n in range(8):
            await publisher.send(run_id, "manager/0", assignment(f"a{n}"), task_id=f"a{n}")
        await until(8)
        releases["a0"].set()  # a slot free: asked for at once
        name = subjects.consumer_name(run_id, spec.name)
        await request_on_server(publisher.js, queue_stream(spec.name), name)
        releases["a1"].set()  # another: one less than a step, so not asked for yet
        for _ in range(1000):
            if queue.in_flight == 6 and not queue._wake.is_set():  # the pump has seen it
                break
            await asyncio.sleep(0.01)
        assert queue._puller is not None and queue._puller.owed == 1
        for n in range(2):
            await publisher.send(run_id, "manager/0", assignment(f"b{n}"), task_id=f"b{n}")
        await until(10)
        assert sorted(got[8:]) == ["b0", "b1"]
        for release in releases.values():
            release.set()
        await queue.stop()


class _RefusingPuller:
    """A puller whose every request the server ends at once (too many waiting requests)."""

    def __init__(self, wake: asyncio.Event) -> None:
        self.wake = wake
        self.asks = 0
        self.doubt: str | None = None
        self.setback: str | None = None
        self.asked = asyncio.Event()

    async def ask(self, room: int) -> None:
        self.asks += 1
        self.setback = "409 Exceeded MaxWaiting"
        self.wake.set()
        if self.asks == 5:
            self.asked.set()


async def test_a_queue_refused_by_the_server_asks_again_ever_more_slowly(
    run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = WorkQueue(
        Bus("nats://127.0.0.1:1", name="w"), run_id, QueueSpec.tasks("coder", 1), DeliverySettings()
    )
    puller = _RefusingPuller(queue._wake)
    queue._puller = puller  # type: ignore[assignment]
    pauses: list[float] = []
    sleep = asyncio.sleep

    async def recorded(delay: float) -> None:
        pauses.append(delay)
        await sleep(0)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    pump = asyncio.get_running_loop().create_task(queue._pump())
    await asyncio.wait_for(puller.asked.wait(), 10)
    pump.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pump
    assert pauses[:4] == [0.05, 0.1, 0.2, 0.4]  # not a request per loop turn
