"""The run log: a JetStream stream on ``society.>`` (file storage), its JSONL export, and
a tolerant reader for exported files.

The stream is the source of truth for ``attach`` and ``replay``; ``runs/<id>/log.jsonl``
is its portable copy. Each line is a `LogRecord`: the stream sequence, the subject and
the envelope exactly as published, or, for a message that was never a valid envelope,
its raw text and the error.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nats.errors
import nats.js.errors
from nats.aio.msg import Msg
from nats.js import api
from pydantic import BaseModel, ConfigDict, ValidationError

from bus import subjects
from bus.connection import Bus
from bus.envelope import Envelope, decode, encode
from bus.errors import RunLogError

__all__ = [
    "STREAM_NAME",
    "LogProblem",
    "LogRead",
    "LogRecord",
    "active_runs",
    "ensure_stream",
    "export_jsonl",
    "fetch_run",
    "follow_run",
    "read_jsonl",
    "record_from_raw",
    "run_exists",
    "write_jsonl",
]

STREAM_NAME = "SOCIETY"


class LogRecord(BaseModel):
    """One message of a run's log."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: int
    """Stream sequence number (order of arrival at the server)."""
    subject: str
    envelope: Envelope | None = None
    raw: str | None = None
    """The message text when it is not a valid envelope."""
    error: str | None = None


_validate_record = LogRecord.__pydantic_validator__.validate_json


def record_from_raw(seq: int, subject: str, data: bytes) -> LogRecord:
    """Make a record from a message as stored, keeping invalid messages as raw text."""
    try:
        return LogRecord.model_construct(seq=seq, subject=subject, envelope=decode(data))
    except ValidationError as exc:
        return LogRecord.model_construct(
            seq=seq,
            subject=subject,
            envelope=None,
            raw=data.decode("utf-8", "replace"),
            error=str(exc.errors()[0]["msg"]) if exc.errors() else str(exc),
        )


def _record_line(record: LogRecord) -> bytes:
    head = f'{{"seq":{record.seq},"subject":{json.dumps(record.subject)}'
    if record.envelope is not None:
        return f'{head},"envelope":'.encode() + encode(record.envelope) + b"}\n"
    tail = f',"raw":{json.dumps(record.raw)},"error":{json.dumps(record.error)}}}\n'
    return (head + tail).encode()


async def ensure_stream(bus: Bus, *, replicas: int = 1, timeout: float = 30.0) -> None:
    """Create the run-log stream if it does not exist (idempotent).

    A JetStream cluster that has just started answers nothing (or 503) until it has
    elected a meta leader, so this retries with short requests for up to ``timeout``.
    """
    js = bus.nc.jetstream(timeout=2.0)
    config = api.StreamConfig(
        name=STREAM_NAME,
        subjects=[subjects.ALL_RUNS],
        storage=api.StorageType.FILE,
        retention=api.RetentionPolicy.LIMITS,
        num_replicas=replicas,
        allow_direct=True,
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            await js.add_stream(config)
            return
        except nats.js.errors.BadRequestError as exc:
            # Already there with another config (e.g. other replicas): keep it as is.
            if exc.err_code == 10058:  # stream name already in use
                return
            msg = f"cannot create the run-log stream: {exc}"
            raise RunLogError(msg) from exc
        except (
            TimeoutError,
            nats.errors.NoRespondersError,
            nats.js.errors.ServiceUnavailableError,
        ):
            if time.monotonic() >= deadline:
                msg = f"cannot create the run-log stream: JetStream did not answer within {timeout:g}s (is it enabled?)"
                raise RunLogError(msg) from None
            await asyncio.sleep(0.1)
        except nats.errors.Error as exc:
            msg = f"cannot create the run-log stream (is JetStream enabled?): {exc}"
            raise RunLogError(msg) from exc


async def active_runs(
    bus: Bus, *, max_age_s: float = 86_400.0, timeout: float = 30.0
) -> list[Envelope]:
    """Goals of the runs in the log that have no final message yet (oldest first).

    Workers started after a run began find it here. Goals older than ``max_age_s`` are
    left out: a run that died without a final message is not joined forever. Like
    `ensure_stream`, it waits (up to ``timeout``) for a cluster that is still electing.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await _active_runs(bus, max_age_s)
        except (
            TimeoutError,
            nats.errors.NoRespondersError,
            nats.js.errors.ServiceUnavailableError,
        ):
            if time.monotonic() >= deadline:
                msg = (
                    f"cannot list the runs in the log: JetStream did not answer within {timeout:g}s"
                )
                raise RunLogError(msg) from None
            await asyncio.sleep(0.1)
        except nats.errors.Error as exc:
            msg = f"cannot list the runs in the log: {exc}"
            raise RunLogError(msg) from exc


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
            goal = decode(raw.data or b"")
        except ValidationError:
            continue
        if time.time() - goal.ts / 1e6 <= max_age_s:
            goals.append(goal)
    return sorted(goals, key=lambda g: g.ts)


async def run_exists(bus: Bus, run_id: str) -> bool:
    """Whether the stream holds any message of ``run_id``."""
    js = bus.nc.jetstream()
    try:
        info = await js.stream_info(STREAM_NAME, subjects_filter=subjects.run_wildcard(run_id))
    except nats.js.errors.NotFoundError:
        return False
    except (TimeoutError, nats.errors.Error) as exc:
        msg = f"cannot read the run log: {exc}"
        raise RunLogError(msg) from exc
    return bool(info.state.subjects)


async def fetch_run(bus: Bus, run_id: str, *, batch: int = 1000) -> list[LogRecord]:
    """Read every message of a run stored so far, in stream order."""
    js = bus.nc.jetstream()
    try:
        psub = await js.pull_subscribe(
            subjects.run_wildcard(run_id),
            stream=STREAM_NAME,
            config=api.ConsumerConfig(
                ack_policy=api.AckPolicy.NONE,
                deliver_policy=api.DeliverPolicy.ALL,
                inactive_threshold=30.0,
            ),
        )
        pending = (await psub.consumer_info()).num_pending or 0
        records: list[LogRecord] = []
        while len(records) < pending:
            want = min(batch, pending - len(records))
            for msg in await psub.fetch(want, timeout=10):
                records.append(record_from_raw(msg.metadata.sequence.stream, msg.subject, msg.data))
        await psub.unsubscribe()
    except (TimeoutError, nats.errors.Error) as exc:
        msg_0 = f"cannot read run {run_id!r} from the log: {exc}"
        raise RunLogError(msg_0) from exc
    return records


async def follow_run(bus: Bus, run_id: str, *, from_seq: int = 1) -> AsyncIterator[LogRecord]:
    """Yield a run's messages from ``from_seq`` on, then live ones as they arrive."""
    js = bus.nc.jetstream()
    queue: asyncio.Queue[LogRecord] = asyncio.Queue()

    async def on_msg(msg: Msg) -> None:
        queue.put_nowait(record_from_raw(msg.metadata.sequence.stream, msg.subject, msg.data))

    try:
        sub = await js.subscribe(
            subjects.run_wildcard(run_id),
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


def write_jsonl(records: Iterable[LogRecord], path: Path) -> int:
    """Write records as JSONL (atomically: a temp file renamed into place); returns the count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".part")
    n = 0
    with tmp.open("wb") as f:
        for record in records:
            f.write(_record_line(record))
            n += 1
    tmp.replace(path)
    return n


async def export_jsonl(bus: Bus, run_id: str, path: Path) -> int:
    """Export a run's log from the stream to ``path``; returns the number of messages."""
    return write_jsonl(await fetch_run(bus, run_id), path)


@dataclass(frozen=True)
class LogProblem:
    """Damage found while reading a log file."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class LogRead:
    """What `read_jsonl` could read, and the damage it found."""

    records: list[LogRecord] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    stopped_at: int | None = None
    """Line number where reading stopped because the rest is unreadable."""


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as f:
        yield from enumerate(f, start=1)


def read_jsonl(path: Path, *, on_problem: Callable[[LogProblem], None] | None = None) -> LogRead:
    """Read a JSONL log, never raising on damage.

    A line that is not JSON (a cut last line, garbage) stops the read there; a JSON line
    that is not a valid record (an unknown message type, say) is kept as raw text with
    its error and reading goes on. Every problem names its line.
    """
    if not path.is_file():
        msg = f"{path}: no such log file"
        raise RunLogError(msg)
    result = LogRead()

    def problem(line: int, message: str) -> None:
        p = LogProblem(line, message)
        result.problems.append(p)
        if on_problem:
            on_problem(p)

    with _gc_paused():
        _read_into(result, path, problem)
    return result


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects: its
    repeated scans of a growing list cost three times the parsing (see bench/replay.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _read_into(result: LogRead, path: Path, problem: Callable[[int, str], None]) -> None:
    for number, line in _iter_lines(path):
        if not line.strip():
            continue
        try:
            result.records.append(_validate_record(line))
            continue
        except ValidationError as exc:
            first = exc.errors()[0] if exc.errors() else None
            if first is not None and first["type"] != "json_invalid":
                salvaged = _salvage(line, exc)
                if salvaged is not None:
                    result.records.append(salvaged)
                    problem(number, f"not a valid message, kept as raw text: {salvaged.error}")
                    continue
        cut = not line.endswith(b"\n")
        problem(number, "the line is cut short (truncated log)" if cut else "the line is not JSON")
        result.stopped_at = number
        break


def _salvage(line: bytes, exc: ValidationError) -> LogRecord | None:
    try:
        data = json.loads(line)
        seq, subject = int(data["seq"]), str(data["subject"])
    except (ValueError, KeyError, TypeError):
        return None
    raw = data.get("raw")
    if raw is None:
        raw = json.dumps(data.get("envelope"))
    errors = exc.errors()
    first = errors[0] if errors else None
    where = ".".join(str(p) for p in first["loc"]) if first else ""
    reason = f"{where}: {first['msg']}" if first else str(exc)
    return LogRecord.model_construct(seq=seq, subject=subject, envelope=None, raw=raw, error=reason)
