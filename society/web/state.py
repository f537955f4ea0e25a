"""The web view's state: who takes part in which live run from the browser, the runs it
follows, and the sign-in `Access` (`society.web.access`); `society.web.routes` serves it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from rich.console import Console

from bus import Bus, BusError, runlog, subjects
from bus.logfile import read_jsonl
from society.credentials import Credential
from society.errors import SocietyError
from society.human.commands import Approve, Command, CommandError, Reject, Reply, Steer
from society.human.locate import connect_to_run, locate_run
from society.human.session import HumanSession, cancel_all, person_name
from society.replay.bundle import is_bundle, open_bundle
from society.replay.source import LiveRun, locate
from society.run.resumption import still_running
from society.web.access import Access, SignedIn
from society.web.page import RunPage

__all__ = ["WebApp"]

log = structlog.get_logger("web")


@dataclass
class _Person:
    """Someone taking part in a live run from the browser."""

    session: HumanSession
    bus: Bus
    task: asyncio.Task[Any]


@dataclass
class WebApp:
    """The runs the web view knows, live followers, and people's sessions."""

    runs_dir: Path
    person: str | None = None
    extra: list[Path] = field(default_factory=list)
    open_reading: bool = True
    """Whether anyone who reaches the server may read (loopback); else only people signed in."""
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="society-web-")))
    _pages: dict[str, tuple[float, RunPage]] = field(default_factory=dict)
    _followers: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    _people: dict[tuple[str, str], _Person] = field(default_factory=dict)
    _opened: dict[str, Path] = field(default_factory=dict)
    """Run id -> folder of a log or bundle given with ``--open``."""

    def __post_init__(self) -> None:
        self.access = Access(person_name(self.person), self.runs_dir)
        for path in self.extra:
            folder = open_bundle(path, self.scratch / path.stem) if is_bundle(path) else None
            log_file = (
                (folder / "log.jsonl")
                if folder
                else (path / "log.jsonl" if path.is_dir() else path)
            )
            read = read_jsonl(log_file)
            if read.run_id:
                self._opened[read.run_id] = log_file.parent

    # -- which runs ----------------------------------------------------------------------

    def runs(self) -> list[dict[str, Any]]:
        """Every run in the runs folder and every one opened, newest first."""
        found = []
        folders = (
            [d for d in self.runs_dir.iterdir() if d.is_dir()] if self.runs_dir.is_dir() else []
        )
        for folder in folders:
            summary = folder / "summary.json"
            status = "live" if still_running(folder) else "unfinished"
            with contextlib.suppress(OSError, ValueError, AttributeError):
                status = json.loads(summary.read_text()).get("status", status)
            if status == "unfinished" and not (folder / "log.jsonl").is_file():
                continue
            found.append({"id": folder.name, "status": status, "mtime": folder.stat().st_mtime})
        for run_id, folder in self._opened.items():
            found.append({"id": run_id, "status": "opened", "mtime": folder.stat().st_mtime})
        return sorted(found, key=lambda r: -r["mtime"])

    def read_only(self, run_id: str) -> bool:
        """Whether the run was opened from a log or bundle (nobody acts on it)."""
        return run_id in self._opened

    def folder_of(self, run_id: str) -> Path:
        """Where a run's files are (its run folder, or an opened log's)."""
        return self._opened.get(run_id) or self.runs_dir / run_id

    async def page(self, run_id: str) -> RunPage:
        """The run's page: followed live, or read from its log file (re-read when it changes)."""
        subjects.check_token(run_id, "run id")
        if run_id in self._followers:
            return self._pages[run_id][1]
        log_file = self.folder_of(run_id) / "log.jsonl"
        if log_file.is_file():
            mtime = log_file.stat().st_mtime
            cached = self._pages.get(run_id)
            if cached is not None and cached[0] == mtime:
                return cached[1]
            page = RunPage(run_id)
            for record in read_jsonl(log_file).records:
                page.take(record)
            self._pages[run_id] = (mtime, page)
            return page
        where = locate(run_id, runs_dir=self.runs_dir)
        if not isinstance(where, LiveRun):
            msg = f"no run {run_id}"
            raise SocietyError(msg)
        page = RunPage(run_id, live=True)
        self._pages[run_id] = (0.0, page)
        self._followers[run_id] = asyncio.create_task(self._follow(where, page))
        return page

    async def _follow(self, where: LiveRun, page: RunPage) -> None:
        try:
            async with Bus(where.connect(), name=f"web-{where.run_id}", reports=False) as bus:
                async for record in runlog.follow_run(bus, where.run_id):
                    page.take(record)
                    if page.state.final is not None:
                        break
        except (BusError, OSError) as exc:
            log.warning("stopped following the run", run=where.run_id, error=str(exc))
        finally:
            page.live = False

    # -- people acting -------------------------------------------------------------------

    async def act(self, run_id: str, who: SignedIn, body: dict[str, Any]) -> str:
        """Carry out a signed-in person's action on a live run; returns what was done."""
        command = _command(body)
        person = await self._person(run_id, who.name, who.credential)
        await person.session.execute(command)
        return f"{type(command).__name__.lower()} sent as {person.session.sender}"

    async def _person(self, run_id: str, name: str, credential: Credential | None) -> _Person:
        key = (run_id, name)
        known = self._people.get(key)
        if known is not None and not known.task.done():
            return known
        if credential is None:  # the owner: their credential from the run folder
            address = locate_run(run_id, runs_dir=self.runs_dir, person=name)
        else:  # an invited person: their own, as given
            found = locate_run(run_id, runs_dir=self.runs_dir)
            address = dataclasses.replace(found, credential=credential)
        bus = await connect_to_run(address, f"web-{name}")
        session = HumanSession(bus, run_id, name, Console(file=io.StringIO()))
        task = asyncio.create_task(session.run())
        ready = asyncio.create_task(session.ready.wait())
        await asyncio.wait({task, ready}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if task.done() or not session.announced:
            await cancel_all([task])
            await bus.close()
            msg = f"could not take part in run {run_id}: it has ended, or its server did not answer"
            raise CommandError(msg)
        person = self._people[key] = _Person(session, bus, task)
        return person

    async def close(self) -> None:
        """Leave every run, stop following."""
        await cancel_all(list(self._followers.values()))
        for person in self._people.values():
            await cancel_all([person.task])
            await person.session.leave()
            await person.bus.close()


def _command(body: dict[str, Any]) -> Command:
    """The attach command for an action from the page."""
    action = str(body.get("action", ""))
    target = body.get("target") or None
    text = str(body.get("text", "")).strip()
    if action == "approve":
        return Approve(target)
    if action == "reject":
        if not text:
            msg = "say why the plan is rejected (the planner reads it)"
            raise CommandError(msg)
        return Reject(target, text)
    if action == "answer":
        if not text:
            msg = "write an answer first"
            raise CommandError(msg)
        return Reply(target, text)
    if action in ("pause", "resume", "abort"):
        return Steer(action, text or "from the web view")  # type: ignore[arg-type]
    msg = f"unknown action {action!r}"
    raise CommandError(msg)
