"""Where a log to replay comes from: a ``log.jsonl`` file, a run folder, a bundle, or a run
id — the file under ``runs/<id>/`` when the run is over, else the run's NATS server (the
URL given, or the one the running run wrote into ``runs/<id>/server.json``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bus import Bus, BusError, ConnectOptions, logfile, runlog, subjects
from bus.logfile import LogProblem, LogRecord
from society.connect import connect_options
from society.credentials import load_credential
from society.errors import RunError
from society.replay.bundle import INPUTS, is_bundle, open_bundle

__all__ = ["LiveRun", "LogSource", "fetch", "live_server", "locate", "read_live", "read_local"]


@dataclass
class LogSource:
    """A run's log as read, and what lies beside it."""

    records: list[LogRecord]
    where: str
    """What was read, for messages."""
    run_dir: Path | None = None
    """The run folder (scenario.json, artifacts, memory snapshot), when there is one."""
    problems: list[LogProblem] = field(default_factory=list)
    stopped_at: int | None = None
    """Line where reading stopped because the rest is damaged."""
    main_run: str | None = None
    """The run most of a log file's messages belong to (a stray line may come first)."""

    @property
    def run_id(self) -> str | None:
        """The run's id: the log file's main run, else that of its first valid message."""
        if self.main_run is not None:
            return self.main_run
        return next((r.envelope.run_id for r in self.records if r.envelope is not None), None)

    @property
    def inputs_dir(self) -> Path | None:
        """The scenario inputs packed in a bundle, if this came from one."""
        if self.run_dir is not None and (self.run_dir / INPUTS).is_dir():
            return self.run_dir / INPUTS
        return None

    @property
    def memory_snapshot(self) -> Path | None:
        """Long-term memory as it was when the run began, if any was recorded."""
        if self.run_dir is None:
            return None
        path = self.run_dir / "memory-at-start.sqlite3"
        return path if path.is_file() else None


def live_server(runs_dir: Path, run_id: str) -> str | None:
    """The NATS URL a running run wrote into its folder, if any."""
    try:
        return str(json.loads((runs_dir / run_id / "server.json").read_text())["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class LiveRun:
    """A run to read from a NATS server."""

    url: str
    run_id: str
    credential: Path | None = None
    """The run owner's credential, for a run's own server (None: the URL's login)."""

    def connect(self) -> ConnectOptions:
        """How to connect: to the URL, as the run's owner when the run folder says how."""
        base = connect_options(self.url)
        return base if self.credential is None else load_credential(self.credential).options(base)


def locate(spec: str, *, runs_dir: Path, nats_url: str | None = None) -> Path | LiveRun:
    """The log file, run folder or bundle ``spec`` names, or the server to read it from."""
    path = Path(spec)
    if path.is_file():
        return path
    if path.is_dir() and (path / "log.jsonl").is_file():
        return path / "log.jsonl"
    if nats_url is None and (runs_dir / spec / "log.jsonl").is_file():
        return runs_dir / spec / "log.jsonl"
    try:
        subjects.check_token(spec, "run id")
    except BusError:
        msg = f"{spec}: no such log file, run folder or bundle"
        raise RunError(msg) from None
    url = nats_url or live_server(runs_dir, spec)
    if url is None:
        msg = (
            f"{spec}: no log file {runs_dir / spec / 'log.jsonl'} and no live run of that id "
            "(give --nats URL to read it from a NATS server)"
        )
        raise RunError(msg)
    owner = runs_dir / spec / "creds" / "runner-0.json"
    readable = nats_url is None and os.access(owner, os.R_OK)
    return LiveRun(url, spec, owner if readable else None)


def read_local(
    path: Path, *, scratch: Path, on_problem: Callable[[LogProblem], None] | None = None
) -> LogSource:
    """Read a log file (or a bundle, unpacked into ``scratch``)."""
    if is_bundle(path):
        path = open_bundle(path, scratch) / "log.jsonl"
    read = logfile.read_jsonl(path, on_problem=on_problem)
    return LogSource(
        read.records, str(path), path.parent, read.problems, read.stopped_at, read.run_id
    )


async def read_live(run: LiveRun, runs_dir: Path) -> LogSource:
    """Every message of a run stored so far on its server."""
    records = await fetch(run.connect(), run.run_id)
    folder = runs_dir / run.run_id
    where = f"run {run.run_id} on {run.url}"
    return LogSource(records, where, folder if folder.is_dir() else None)


async def fetch(connect: ConnectOptions | str, run_id: str) -> list[LogRecord]:
    """Every message of ``run_id`` stored so far on the server ``connect`` reaches."""
    async with Bus(connect, name=f"replay-{run_id}", reports=False) as bus:
        url = ",".join(bus.options.servers)
        if not await runlog.run_exists(bus, run_id):
            msg = f"run {run_id!r} is not in the run log on {url}"
            raise RunError(msg)
        return await runlog.fetch_run(bus, run_id)
