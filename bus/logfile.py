"""The run log's file format: `LogRecord` lines of JSONL, written atomically and read
tolerantly (``runs/<id>/log.jsonl`` and bundles).

Each line is a `LogRecord`: the stream sequence, the subject and the envelope exactly as
published, or, for a message that was never a valid envelope, its raw text and the error.
A reader never raises on damage: it keeps what it can and names each damaged line.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from bus.envelope import Envelope, decode, encode
from bus.errors import RunLogError

__all__ = [
    "LogProblem",
    "LogRead",
    "LogRecord",
    "read_jsonl",
    "record_from_raw",
    "write_jsonl",
]


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
