"""The run log's file format: `LogRecord` lines of JSONL, written atomically and read
tolerantly (``runs/<id>/log.jsonl`` and bundles).

Each line is a `LogRecord`: the stream sequence, the subject and the envelope exactly as
published, or, for a message that was never a valid envelope, its raw text and the error.
A reader never raises on damage: it keeps what it can and names each damaged line. Lines
that read fine but are out of place (duplicated, out of order, from another run) are kept
too, and counted: one `LogAnomaly` per kind, naming the first few lines.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from bus.authority import misfit
from bus.envelope import Envelope, decode, encode
from bus.errors import RunLogError

__all__ = [
    "AnomalyKind",
    "LogAnomaly",
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
        envelope = decode(data)
        why = misfit(subject, envelope)  # stored, but refused by every receiver
    except ValidationError as exc:
        why = str(exc.errors()[0]["msg"]) if exc.errors() else str(exc)
    if why is None:
        return LogRecord.model_construct(seq=seq, subject=subject, envelope=envelope)
    return LogRecord.model_construct(
        seq=seq, subject=subject, envelope=None, raw=data.decode("utf-8", "replace"), error=why
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


AnomalyKind = Literal["duplicated", "reordered", "other_run"]
SHOWN_LINES = 5
"""How many line numbers a `LogAnomaly` names."""


@dataclass(frozen=True)
class LogAnomaly(LogProblem):
    """Lines of one kind that read fine but are out of place, counted: a log edited,
    concatenated or merged by hand. ``line`` is the first; ``lines`` the first few."""

    kind: AnomalyKind
    count: int
    lines: tuple[int, ...]

    def __str__(self) -> str:
        return self.message


_WHAT: dict[AnomalyKind, tuple[str, str]] = {
    "duplicated": ("duplicated", "the same seq or message id as an earlier line"),
    "reordered": ("out of order", "a lower seq than the line before"),
    "other_run": ("from another run", "the log's run is {run}"),
}


class _Tally:
    """How many lines, and the first few of them."""

    __slots__ = ("count", "lines")

    def __init__(self) -> None:
        self.count = 0
        self.lines: list[int] = []

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.lines) < SHOWN_LINES:
            self.lines.append(line)


def _anomaly(kind: AnomalyKind, tally: _Tally, run: str | None) -> LogAnomaly:
    what, why = _WHAT[kind]
    more = ", …" if tally.count > len(tally.lines) else ""
    plural = "s" if tally.count != 1 else ""
    message = (
        f"{tally.count} line{plural} {what} ({why.format(run=run)}): "
        f"line{plural} {', '.join(map(str, tally.lines))}{more}; kept in place"
    )
    return LogAnomaly(tally.lines[0], message, kind, tally.count, tuple(tally.lines))


class _OrderCheck:
    """Spots duplicated, reordered and other-run lines, line by line.

    Order is judged by ``seq`` only: message ids sort by time per process, but processes'
    messages reach the stream in any order, so ids in a sound log need not increase.
    """

    def __init__(self) -> None:
        self.seqs: set[int] = set()
        self.ids: set[str] = set()
        self.last: int | None = None
        self.duplicated = _Tally()
        self.reordered = _Tally()
        self.runs: dict[str, _Tally] = {}

    def see(self, line: int, record: LogRecord) -> None:
        seq, env = record.seq, record.envelope
        mid = env.id if env is not None else None
        if seq in self.seqs or (mid is not None and mid in self.ids):
            self.duplicated.add(line)
        elif self.last is not None and seq < self.last:
            self.reordered.add(line)
        self.last = seq
        self.seqs.add(seq)
        if env is not None:
            self.ids.add(env.id)
            tally = self.runs.get(env.run_id)
            if tally is None:
                tally = self.runs[env.run_id] = _Tally()
            tally.add(line)

    @property
    def run_id(self) -> str | None:
        """The run most envelopes belong to (the first seen, on a tie)."""
        return max(self.runs, key=lambda r: self.runs[r].count) if self.runs else None

    def anomalies(self) -> list[LogAnomaly]:
        """One `LogAnomaly` per kind found, in a fixed order."""
        run = self.run_id
        foreign = _Tally()
        for other, tally in self.runs.items():
            if other != run:
                foreign.count += tally.count
                foreign.lines = sorted(foreign.lines + tally.lines)[:SHOWN_LINES]
        tallies: list[tuple[AnomalyKind, _Tally]] = [
            ("duplicated", self.duplicated),
            ("reordered", self.reordered),
            ("other_run", foreign),
        ]
        return [_anomaly(kind, tally, run) for kind, tally in tallies if tally.count]


def _out_of_place(
    records: list[LogRecord], blanks: list[int]
) -> tuple[list[LogAnomaly], str | None]:
    """The anomalies among ``records`` and the log's run. A sound log (one run, seqs and
    ids unique, seqs rising) is recognised in a few passes at C speed; only a log that is
    not is walked line by line."""
    envs = [r.envelope for r in records if r.envelope is not None]
    runs = {e.run_id for e in envs}
    seqs = [r.seq for r in records]
    sound = len(set(seqs)) == len(seqs) and seqs == sorted(seqs)
    if sound and len(runs) <= 1 and len({e.id for e in envs}) == len(envs):
        return [], next(iter(runs), None)
    check = _OrderCheck()
    for number, record in zip(_line_numbers(blanks), records, strict=False):
        check.see(number, record)
    return check.anomalies(), check.run_id


def _line_numbers(blanks: list[int]) -> Iterator[int]:
    """Line numbers of the records: every line but the blank ones."""
    skip = set(blanks)
    return (n for n in itertools.count(1) if n not in skip)


@dataclass
class LogRead:
    """What `read_jsonl` could read, and the damage it found."""

    records: list[LogRecord] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    """Damaged lines, then one `LogAnomaly` per kind of out-of-place line."""
    stopped_at: int | None = None
    """Line number where reading stopped because the rest is unreadable."""
    run_id: str | None = None
    """The run most of its envelopes belong to."""


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as f:
        yield from enumerate(f, start=1)


def read_jsonl(path: Path, *, on_problem: Callable[[LogProblem], None] | None = None) -> LogRead:
    """Read a JSONL log, never raising on damage.

    A line that is not JSON (a cut last line, garbage) stops the read there; a JSON line
    that is not a valid record (an unknown message type, say) is kept as raw text with
    its error and reading goes on. Every problem names its line; duplicated, reordered and
    other-run lines are kept and reported at the end, one `LogAnomaly` per kind.
    """
    if not path.is_file():
        msg = f"{path}: no such log file"
        raise RunLogError(msg)
    result = LogRead()

    def report(p: LogProblem) -> None:
        result.problems.append(p)
        if on_problem:
            on_problem(p)

    blanks: list[int] = []
    with _gc_paused():
        _read_into(result, path, lambda line, message: report(LogProblem(line, message)), blanks)
        anomalies, result.run_id = _out_of_place(result.records, blanks)
    for anomaly in anomalies:
        report(anomaly)
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


def _read_into(
    result: LogRead, path: Path, problem: Callable[[int, str], None], blanks: list[int]
) -> None:
    for number, line in _iter_lines(path):
        if not line.strip():
            blanks.append(number)
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
