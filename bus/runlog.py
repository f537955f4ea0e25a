"""The run log: a JetStream stream on ``society.>`` (file storage) and what reads it —
one run's messages, a live follow, the runs under way — and its export to a file.

The stream is the source of truth for ``attach`` and ``replay``; ``runs/<id>/log.jsonl``
(`bus.logfile`) is its portable copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

import nats.errors
import nats.js.errors
from nats.aio.msg import Msg
from nats.js import api
from pydantic import ValidationError

from bus import bodies, subjects
from bus.connection import Bus
from bus.envelope import Envelope, decode
from bus.errors import BusError, RunLogError
from bus.logfile import LogRecord, record_from_raw, write_jsonl
from bus.payloads import Final, Presence
from bus.roster import ROSTER
from bus.subjects import Channel

__all__ = [
    "STREAM_NAME",
    "Exported",
    "active_runs",
    "ensure_stream",
    "export_jsonl",
    "fetch_run",
    "follow_run",
    "queue_stream",
    "queues_fed",
    "run_exists",
    "work_queues",
]

STREAM_NAME = "SOCIETY"
T = TypeVar("T")


def work_queues() -> dict[str, tuple[str, ...]]:
    """The roles' work queues (`bus.roster`), each on a stream of its own fed from the run log
    by JetStream's sourcing (one source per queue, so its messages keep the log's order), and
    kept only until a worker acks. Pulls, acks and consumer changes name the stream, so a
    role's credentials reach its own queue and nothing else; and the log itself holds no work
    queue, so those who may read it through consumers of their own cannot touch one."""
    return ROSTER.queues()


def queue_stream(queue: str) -> str:
    """The stream a work queue's consumers live on (the log, for a queue not listed)."""
    return f"{STREAM_NAME}-{queue}" if queue in work_queues() else STREAM_NAME


def _same_subject(pattern: str) -> api.SubjectTransform:
    """A transform that keeps the subject as it is (sourcing several filters at once)."""
    tokens = pattern.split(".")
    wildcards = iter(range(1, len(tokens) + 1))
    dest = ".".join(f"{{{{wildcard({next(wildcards)})}}}}" if t == "*" else t for t in tokens)
    return api.SubjectTransform(src=pattern, dest=dest)


def _stream_configs(replicas: int) -> list[api.StreamConfig]:
    log_stream = api.StreamConfig(
        name=STREAM_NAME,
        subjects=[subjects.ALL_RUNS],
        storage=api.StorageType.FILE,
        retention=api.RetentionPolicy.LIMITS,
        num_replicas=replicas,
        allow_direct=True,
    )
    queues = [
        api.StreamConfig(
            name=queue_stream(queue),
            sources=[
                api.StreamSource(
                    name=STREAM_NAME, subject_transforms=[_same_subject(f) for f in filters]
                )
            ],
            storage=api.StorageType.FILE,
            retention=api.RetentionPolicy.WORK_QUEUE,
            num_replicas=replicas,
        )
        for queue, filters in work_queues().items()
    ]
    return [log_stream, *queues]


async def ensure_stream(bus: Bus, *, replicas: int = 1, timeout: float = 30.0) -> None:
    """Create the run-log stream, the work queues' streams and the store of large message
    bodies if they do not exist (idempotent).

    A JetStream cluster that has just started answers nothing (or 503) until it has
    elected a meta leader, so this retries with short requests for up to ``timeout``.
    """
    deadline = time.monotonic() + timeout
    for config in _stream_configs(replicas):
        await _add_stream(bus, config, deadline, timeout)
    await bodies.ensure_bucket(bus.nc, replicas=replicas)


async def _add_stream(bus: Bus, config: api.StreamConfig, deadline: float, timeout: float) -> None:
    js = bus.nc.jetstream(timeout=2.0)

    async def add() -> None:
        try:
            await js.add_stream(config)
        except nats.js.errors.BadRequestError as exc:
            # Already there with another config (e.g. other replicas): keep it as is.
            if exc.err_code != 10058:  # 10058: stream name already in use
                msg = f"cannot create the stream {config.name}: {exc}"
                raise RunLogError(msg) from exc

    await _patiently(add, f"cannot create the stream {config.name}", deadline, timeout)


_NOT_ANSWERING = (
    TimeoutError,
    nats.errors.NoRespondersError,
    nats.js.errors.ServiceUnavailableError,
)
"""What JetStream raises while it starts or a cluster elects its leader: worth asking again."""


async def _patiently(
    ask: Callable[[], Awaitable[T]], what: str, deadline: float, timeout: float
) -> T:
    """``ask`` until JetStream answers (until ``deadline``); else a `RunLogError` that says
    ``what`` could not be done and why."""
    while True:
        try:
            return await ask()
        except _NOT_ANSWERING:
            if time.monotonic() >= deadline:
                msg = f"{what}: JetStream did not answer within {timeout:g}s (is it enabled?)"
                raise RunLogError(msg) from None
            await asyncio.sleep(0.1)
        except nats.errors.Error as exc:
            msg = f"{what} (is JetStream enabled?): {exc}"
            raise RunLogError(msg) from exc


async def queues_fed(bus: Bus, *, timeout: float = 10.0) -> bool:
    """Wait until JetStream feeds every work queue from the log; False if it did not
    within ``timeout``.

    A server sets up a new stream's sourcing a while after creating it (about 0.15 s on a
    2-core machine): a message stored in the log meanwhile reaches its queue only then.
    The benchmarks wait here so that their first run does not pay for the streams' creation.
    """
    deadline = time.monotonic() + timeout
    for queue in work_queues():
        while True:
            try:
                info = await bus.js.stream_info(queue_stream(queue))
            except (TimeoutError, nats.errors.Error) as exc:
                msg = f"cannot read the stream {queue_stream(queue)}: {exc}"
                raise RunLogError(msg) from exc
            if all(s.active is not None and s.active >= 0 for s in info.sources or []):
                break
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.02)  # nothing to wait on: the server only reports it
    return True


async def active_runs(
    bus: Bus, *, max_age_s: float = 86_400.0, timeout: float = 30.0
) -> list[Envelope]:
    """Goals of the runs in the log that have no final message yet (oldest first).

    Workers started after a run began find it here. Goals older than ``max_age_s`` are
    left out: a run that died without a final message is not joined forever. Like
    `ensure_stream`, it waits (up to ``timeout``) for a cluster that is still electing.
    """
    deadline = time.monotonic() + timeout
    what = "cannot list the runs in the log"
    return await _patiently(lambda: _active_runs(bus, max_age_s), what, deadline, timeout)


async def _active_runs(bus: Bus, max_age_s: float) -> list[Envelope]:
    js = bus.nc.jetstream(timeout=2.0)
    try:
        info = await js.stream_info(
            STREAM_NAME, subjects_filter=subjects.any_run(subjects.Channel.GOAL)
        )
    except nats.js.errors.NotFoundError:
        return []
    goals: list[Envelope] = []
    for subject in sorted(info.state.subjects or {}):
        run_id = subjects.parse(subject).run_id
        try:
            await js.get_last_msg(STREAM_NAME, subjects.subject(run_id, subjects.Channel.FINAL))
            continue  # finished
        except nats.js.errors.NotFoundError:
            pass
        raw = await js.get_last_msg(STREAM_NAME, subject)
        try:
            goal = decode(await bodies.body_of(bus.nc, raw))
        except (ValidationError, BusError):
            continue
        if time.time() - goal.ts / 1e6 <= max_age_s:
            goals.append(goal)
    return sorted(goals, key=lambda g: g.ts)


async def _record(bus: Bus, msg: Msg) -> LogRecord:
    """A stored message as a log record (its body fetched when it travelled by reference)."""
    try:
        data = await bodies.body_of(bus.nc, msg)
    except BusError as exc:
        data = f"(body not readable: {exc})".encode()
    return record_from_raw(msg.metadata.sequence.stream, msg.subject, data)


async def run_exists(bus: Bus, run_id: str) -> bool:
    """Whether the stream holds any message of ``run_id``."""
    js = bus.nc.jetstream()
    try:
        info = await js.stream_info(STREAM_NAME, subjects_filter=subjects.run_wildcard(run_id))
    except nats.js.errors.NotFoundError:
        return False
    except (TimeoutError, nats.errors.Error) as exc:
        error = RunLogError(f"cannot read the run log: {exc}")
        error.unavailable = isinstance(exc, nats.js.errors.ServiceUnavailableError)
        raise error from exc
    return bool(info.state.subjects)


async def fetch_run(bus: Bus, run_id: str) -> list[LogRecord]:
    """Read every message of a run stored so far, in stream order.

    An ordered consumer (pushed, unacknowledged, ephemeral) reads it, so reading the log
    needs no pulls or acks: credentials that may read the log cannot touch a work queue.
    """
    js = bus.nc.jetstream(timeout=30.0)  # a loaded server answers late, but answers
    pattern = subjects.run_wildcard(run_id)
    records: list[LogRecord] = []
    try:
        info = await js.stream_info(STREAM_NAME, subjects_filter=pattern)
        stored = sum((info.state.subjects or {}).values())
        if stored == 0:
            return records
        complete = asyncio.Event()

        async def on_msg(msg: Msg) -> None:
            if len(records) < stored:
                records.append(await _record(bus, msg))
            if len(records) >= stored:
                complete.set()

        sub = await js.subscribe(pattern, stream=STREAM_NAME, cb=on_msg, ordered_consumer=True)
        try:
            await asyncio.wait_for(complete.wait(), timeout=max(10.0, stored / 1000))
        finally:
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()
    except (TimeoutError, nats.errors.Error) as exc:
        msg_0 = f"cannot read run {run_id!r} from the log: {exc}"
        raise RunLogError(msg_0) from exc
    return records


async def follow_run(
    bus: Bus, run_id: str, *, from_seq: int = 1, subject: str | None = None
) -> AsyncIterator[LogRecord]:
    """Yield a run's messages (those on ``subject`` only, if given) from ``from_seq`` on,
    then live ones as they arrive."""
    js = bus.nc.jetstream()
    queue: asyncio.Queue[LogRecord] = asyncio.Queue()

    async def on_msg(msg: Msg) -> None:
        queue.put_nowait(await _record(bus, msg))

    try:
        sub = await js.subscribe(
            subject or subjects.run_wildcard(run_id),
            stream=STREAM_NAME,
            cb=on_msg,
            ordered_consumer=True,
            config=api.ConsumerConfig(
                deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=from_seq
            ),
        )
    except (TimeoutError, nats.errors.Error) as exc:
        msg = f"cannot follow run {run_id!r}: {exc}"
        raise RunLogError(msg) from exc
    try:
        while True:
            yield await queue.get()
    finally:
        with contextlib.suppress(nats.errors.Error):
            await sub.unsubscribe()


def watch_run(
    bus: Bus, run_id: str, channels: list[Channel], handler: Callable[[Envelope], Awaitable[None]]
) -> list[asyncio.Task[None]]:
    """Hand ``handler`` the run's envelopes on ``channels`` as the log stores them (none is
    missed, however late a subscription becomes live); cancel the tasks to stop."""

    async def one(channel: Channel) -> None:
        subject = (  # tasks are on one subject per role
            subjects.run_wildcard(run_id, channel)
            if channel is Channel.TASK
            else subjects.subject(run_id, channel)
        )
        async for record in follow_run(bus, run_id, subject=subject):
            if record.envelope is not None:
                await handler(record.envelope)

    return [asyncio.get_running_loop().create_task(one(c)) for c in channels]


class Exported(NamedTuple):
    """What an export wrote, and the heartbeats it left out."""

    messages: int
    heartbeats: int
    final: bool = False
    """Whether the log holds the run's final message."""


async def export_jsonl(bus: Bus, run_id: str, path: Path) -> Exported:
    """Export a run's log from the stream to ``path``.

    Presence heartbeats are left out: they matter only while the run lives (who is
    there now), and they would be most of a long run's log. Arrivals and goodbyes stay.
    """
    stored = await fetch_run(bus, run_id)
    records = [r for r in stored if not _heartbeat(r)]
    final = any(r.envelope is not None and isinstance(r.envelope.payload, Final) for r in records)
    return Exported(write_jsonl(records, path), len(stored) - len(records), final)


def _heartbeat(record: LogRecord) -> bool:
    env = record.envelope
    return (
        env is not None and isinstance(env.payload, Presence) and env.payload.status == "heartbeat"
    )
