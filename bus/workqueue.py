"""Work queues: a durable JetStream pull consumer per (run, queue).

The worker roles' queues (plan requests, each role's tasks) live on streams of their own
(``SOCIETY-task-coder``…, `bus.runlog.work_queues`), fed from the run log by JetStream's
sourcing and kept only until a worker acks: a role's credentials then reach its own
queue's consumers and no other's, since JetStream's pull and ack subjects name the
stream. The manager's inbox stays a consumer on the log itself, in the log's order. A
durable consumer filtered on a run's subject, with explicit acks, is a work queue: every
worker of the role pulls from the same cursor, a message is out with one worker at a time.

The delivery contract:

- a worker pulls only as many messages as it has free slots, so no task waits inside a
  busy worker while another is idle;
- while a handler runs, its delivery is heartbeated (``+WPI``) every ``ack_wait_s / 3``,
  so a long task is not redelivered while its worker lives;
- a handler that returns acks; one cancelled by a shutdown naks (another worker takes
  the task at once); one that raises naks after a pause;
- a worker that dies stops heartbeating, and after ``ack_wait_s`` the server redelivers
  the message to another worker;
- a message delivered ``max_deliveries`` times without an ack is not handled again: its
  next delivery is published as a `DeadLetter` with the reason, the queue's owner is told
  (`ExhaustedHandler`: a worker reports a failed task), and the message is terminated.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats.errors
import nats.js.errors
import structlog
from nats.aio.msg import Msg
from nats.js import api
from pydantic import ValidationError

from bus import bodies, subjects, taps
from bus.authority import misfit
from bus.connection import Bus
from bus.deadletters import short_error
from bus.delivery import DeliverySettings
from bus.envelope import decode
from bus.errors import BusError, BusPermissionError, RunLogError
from bus.payloads import DeadLetter
from bus.pulling import Puller
from bus.runlog import STREAM_NAME, queue_stream, work_queues
from bus.settling import Delivery, Heartbeat
from bus.subjects import Channel

__all__ = [
    "Delivery",
    "DeliveryHandler",
    "DeliverySettings",
    "ExhaustedHandler",
    "QueueSpec",
    "WorkQueue",
    "delete_run_queues",
    "ensure_queue",
]

log = structlog.get_logger("bus.workqueue")

ORDERED_ROOM = 256
"""Deliveries an ordered queue asks for ahead of the one it is handling."""


@dataclass(frozen=True)
class QueueSpec:
    """Which channels of a run a role takes through a work queue, and how."""

    name: str
    """The queue's name in the run (its consumer is ``<run>--<name>``)."""
    channels: tuple[Channel, ...]
    role: str | None = None
    """The role token of ``task.<role>`` (only for the task channel)."""
    parallel: int = 1
    """Handlers running at once (a worker's concurrency)."""
    ordered: bool = False
    """Handle one message at a time, in the order the log stored them (the manager's
    inbox: a critique is handled after the result it is about)."""

    @classmethod
    def tasks(cls, role: str, parallel: int) -> QueueSpec:
        """The task queue of ``role``, shared by all its workers."""
        return cls(f"task-{role}", (Channel.TASK,), role, parallel)

    def filters(self, run_id: str) -> list[str]:
        """The subjects of ``run_id`` this queue delivers."""
        return [
            subjects.subject(run_id, c, self.role if c is Channel.TASK else None)
            for c in self.channels
        ]


DeliveryHandler = Callable[[Delivery], Awaitable[None]]
ExhaustedHandler = Callable[[Delivery], Awaitable[None]]


def _consumer_config(
    name: str, filters: list[str], settings: DeliverySettings
) -> api.ConsumerConfig:
    return api.ConsumerConfig(
        name=name,
        durable_name=name,
        filter_subject=filters[0] if len(filters) == 1 else None,
        filter_subjects=filters if len(filters) > 1 else None,
        deliver_policy=api.DeliverPolicy.ALL,
        ack_policy=api.AckPolicy.EXPLICIT,
        ack_wait=settings.ack_wait_s,
        # One more than allowed: that last delivery is the one that dead-letters.
        max_deliver=settings.max_deliveries + 1,
        max_ack_pending=-1,
        max_waiting=4096,
        inactive_threshold=settings.inactive_s,
    )


async def ensure_queue(bus: Bus, run_id: str, spec: QueueSpec, settings: DeliverySettings) -> str:
    """Create (or update) the durable consumer of ``spec`` for ``run_id``; returns its name.

    Idempotent: every worker of the role calls it, and the first one creates it. It
    delivers from the start of the run, so tasks published before any worker came wait.
    """
    name = subjects.consumer_name(run_id, spec.name)
    try:
        await bus.js.add_consumer(
            queue_stream(spec.name), _consumer_config(name, spec.filters(run_id), settings)
        )
    except nats.js.errors.BadRequestError as exc:
        # Exists with settings that cannot change in place: use it as it is.
        log.warning("work queue kept as it was", queue=name, reason=str(exc))
    except (TimeoutError, nats.errors.Error) as exc:
        msg = f"cannot create the work queue {name}: {exc}"
        raise RunLogError(msg) from exc
    return name


async def delete_run_queues(bus: Bus, run_id: str) -> int:
    """Remove every work queue of ``run_id`` (when the run is over); returns how many.

    The streams are cleared side by side: a run's end waits for one round of requests, not
    one per stream."""
    try:
        cleared = await asyncio.gather(
            *(
                _clear_stream(bus, stream, run_id)
                for stream in (STREAM_NAME, *map(queue_stream, work_queues()))
            )
        )
    except (TimeoutError, nats.errors.Error) as exc:
        msg = f"cannot remove the work queues of run {run_id!r}: {exc}"
        raise RunLogError(msg) from exc
    return sum(cleared)


async def _clear_stream(bus: Bus, stream: str, run_id: str) -> int:
    """Delete ``run_id``'s consumers on ``stream`` (and, on a queue stream, what no worker took:
    cancelled or never pulled); returns how many consumers."""
    jsm = bus.js
    names: list[str] = []
    offset = 0
    while True:
        try:
            page = await jsm.consumers_info(stream, offset=offset)
        except nats.js.errors.NotFoundError:
            return 0  # a queue stream of an older server
        names += [c.name for c in page if subjects.run_of_consumer(c.name) == run_id]
        if len(page) < 256:
            break
        offset += len(page)
    for name in names:
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await jsm.delete_consumer(stream, name)
    if stream != STREAM_NAME:
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await jsm.purge_stream(stream, subject=subjects.run_wildcard(run_id))
    return len(names)


class WorkQueue:
    """Pulls a run's messages of one channel from its durable consumer and handles them."""

    def __init__(self, bus: Bus, run_id: str, spec: QueueSpec, settings: DeliverySettings) -> None:
        self.bus = bus
        self.run_id = run_id
        self.spec = spec
        self.settings = settings
        self.name = subjects.consumer_name(run_id, spec.name)
        self._handler: DeliveryHandler | None = None
        self._on_exhausted: ExhaustedHandler | None = None
        self._puller: Puller | None = None
        self._pump_task: asyncio.Task[None] | None = None
        self._ordered_task: asyncio.Task[None] | None = None
        self._in_order: asyncio.Queue[Msg] = asyncio.Queue()
        self._running: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._log = log.bind(queue=self.name, bus=bus.name)

    async def start(
        self, handler: DeliveryHandler, on_exhausted: ExhaustedHandler | None = None
    ) -> None:
        """Make sure the consumer exists, subscribe to its deliveries, and start pulling."""
        await ensure_queue(self.bus, self.run_id, self.spec, self.settings)
        room = ORDERED_ROOM if self.spec.ordered else self.spec.parallel
        self._puller = Puller(
            self.bus.nc,
            queue_stream(self.spec.name),
            self.name,
            self._arrived,
            self._wake.set,
            expires_s=self.settings.poll_s,
            least=max(1, room // 4),
        )
        try:
            await self._puller.start()
        except nats.errors.Error as exc:
            msg = f"cannot subscribe to the work queue {self.name}: {exc}"
            raise BusError(msg) from exc
        self._handler, self._on_exhausted = handler, on_exhausted
        loop = asyncio.get_running_loop()
        if self.spec.ordered:
            self._ordered_task = loop.create_task(self._in_turn(), name=f"handle {self.name}")
        self._pump_task = loop.create_task(self._pump(), name=f"pull {self.name}")

    async def stop(self) -> None:
        """Stop pulling; cancel handlers (their deliveries go back to the queue)."""
        if self._puller is not None:
            await self._puller.stop()
        tasks = [t for t in (self._pump_task, self._ordered_task, *self._running) if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._pump_task = self._ordered_task = None
        while not self._in_order.empty():  # delivered, never handled: to the next taker now
            with contextlib.suppress(nats.errors.Error):
                await self._in_order.get_nowait().nak()

    @property
    def in_flight(self) -> int:
        """Deliveries being handled now."""
        return len(self._running)

    async def idle(self) -> None:
        """Wait until no delivery is being handled (each one settled)."""
        await self._idle.wait()

    def _room(self) -> int:
        if self.spec.ordered:
            return max(0, ORDERED_ROOM - self._in_order.qsize())
        return max(0, self.spec.parallel - len(self._running))

    async def _pump(self) -> None:
        """Keep as much asked for as there is room; re-ask as requests end and handlers finish."""
        puller = self._puller
        assert puller is not None
        pause = 0.05
        while True:
            self._wake.clear()
            trouble = puller.doubt or puller.setback
            if puller.doubt is not None and await self._gone():
                self._log.info("work queue removed; stopped pulling")
                return
            puller.doubt = puller.setback = None
            if trouble is not None:  # the server said no: not again at once
                self._log.debug("pull refused; asking again shortly", why=trouble)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 1.0)
            try:
                await puller.ask(self._room())
            except nats.errors.ConnectionClosedError:
                return
            except (nats.errors.Error, OSError) as exc:
                self._log.debug("pull failed; retrying", error=str(exc) or type(exc).__name__)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 1.0)
                continue
            if trouble is None:
                pause = 0.05
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.poll_s):
                    await self._wake.wait()

    async def _arrived(self, msg: Msg) -> None:
        if self.spec.ordered:
            self._in_order.put_nowait(msg)
            return
        task = asyncio.get_running_loop().create_task(self._process(msg))
        self._running.add(task)
        self._idle.clear()
        task.add_done_callback(self._finished)

    async def _in_turn(self) -> None:
        """The ordered queue's handler: one delivery at a time, in the order they came."""
        while True:
            msg = await self._in_order.get()
            self._idle.clear()
            try:
                await self._process(msg)
            finally:
                if self._in_order.empty():
                    self._idle.set()
            self._wake.set()

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._wake.set()
        if not self._running:
            self._idle.set()

    async def _gone(self) -> bool:
        try:
            await self.bus.js.consumer_info(queue_stream(self.spec.name), self.name)
        except nats.js.errors.NotFoundError:
            return True
        except (TimeoutError, nats.errors.Error):
            return False
        return False

    async def _process(self, msg: Msg) -> None:
        try:
            envelope = decode(await bodies.body_of(self.bus.nc, msg))
            why = misfit(msg.subject, envelope)
        except ValidationError as exc:
            why = short_error(exc)
        except BusError as exc:
            why = str(exc)
        if why is not None:
            self.bus.refuse(msg, why)
            with contextlib.suppress(nats.errors.Error):
                await msg.term()
            return
        delivery = Delivery(msg, envelope)
        taps.delivered(envelope)
        if delivery.deliveries > self.settings.max_deliveries:
            await self._exhausted(delivery)
            return
        assert self._handler is not None
        # Most handlers finish well within the ack wait: the heartbeat starts only for one
        # that does not (a timer, not a task per message: the manager's inbox is hot).
        beat = Heartbeat(delivery, self.settings.ack_wait_s / 3)
        try:
            await self._handler(delivery)
        except asyncio.CancelledError:
            await delivery.nak()  # a shutdown: another worker takes it now
            raise
        except BusPermissionError as exc:
            self._log.error("handler refused by the server; dropping", error=str(exc))
            await delivery.term()
        except Exception:
            self._log.exception("handler failed; the message goes back", id=envelope.id)
            await delivery.nak(delay=1.0)
        else:
            await delivery.ack()
        finally:
            beat.cancel()

    async def _exhausted(self, delivery: Delivery) -> None:
        env = delivery.envelope
        tries = delivery.deliveries - 1
        reason = (
            f"delivered {tries} times and never finished (its workers crashed or stalled); "
            "not delivered again"
        )
        self._log.error("giving up on a message", id=env.id, task=env.task_id, reason=reason)
        with contextlib.suppress(BusError):
            await self.bus.send(
                self.run_id,
                self.bus.sender,
                DeadLetter(
                    subject=self.spec.filters(self.run_id)[0],
                    raw=env.model_dump_json(),
                    error=reason,
                    receiver=self.bus.name,
                ),
                parent_id=env.id,
                task_id=env.task_id,
            )
        if self._on_exhausted is not None:
            try:
                await self._on_exhausted(delivery)
            except Exception:
                self._log.exception("could not report an exhausted message", id=env.id)
        await delivery.term()
