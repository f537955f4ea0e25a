"""`RunObserver`: the runner's own connection to a run — it creates the run log, sees every
message once (feeding the live view), catches up from the log after a reconnect, waits
for the final message, and at the end exports the log to ``runs/<id>/log.jsonl``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import structlog

from bus import Bus, BusError, ConnectOptions, Envelope, runlog, subjects, workqueue
from bus.envelope import encode, subject_for
from bus.logfile import LogRecord
from bus.payloads import Control, Final, Goal, Presence
from roles.base import Role
from society.view.live import LiveView

__all__ = ["RunObserver", "to_the_end"]

FINAL_STORE_TRIES = 20
FINAL_STORE_WAIT_S = 0.5
"""How long an export waits for the stream to hold the final message the run has seen:
on a three-node cluster under load, the run received its final before the replicated
stream had stored it, and the exported log lacked it."""

log = structlog.get_logger("runner")
T = TypeVar("T")


async def to_the_end(work: Awaitable[T]) -> T:
    """Await ``work`` to its end even if we are cancelled meanwhile (a second Ctrl-C, a
    SIGTERM during clean-up); the cancellation is raised once it is done."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


class RunObserver:
    """Watches one run from the runner's side (an async context manager)."""

    def __init__(self, connect: ConnectOptions, run_id: str, view: LiveView) -> None:
        self.run_id = run_id
        self.view = view
        self.bus = Bus(connect, name=f"{run_id}-runner", durable=True)
        self.final_seen = asyncio.Event()
        self._final_live: Envelope | None = None
        """The final message, seen as it was published (not read from the log)."""
        self.parked: Control | None = None
        """The manager parked the run (it waits for a person with its processes stopped)."""
        self.exported = False
        """The log is in its file (export ran to the end)."""
        self._seen: set[str] = set()
        self.people: set[str] = set()
        """The people attached right now (by their presence messages)."""
        self._people_changed = asyncio.Event()

    async def __aenter__(self) -> RunObserver:
        await self.bus.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bus.close()

    async def start(self, *, replicas: int = 1) -> None:
        """Create the run log's stream and follow the run."""
        await runlog.ensure_stream(self.bus, replicas=replicas)
        await self.bus.subscribe(subjects.run_wildcard(self.run_id), self._observe)
        self.bus.on_reconnect(self._catch_up)
        await self.bus.flush()

    async def _observe(self, env: Envelope, *, logged: bool = False) -> None:
        if env.id in self._seen:
            return
        self._seen.add(env.id)
        self.view.update(env)
        if isinstance(env.payload, Final):
            self._final_live = None if logged else env
            self.final_seen.set()
        elif isinstance(env.payload, Presence) and env.payload.role == "human":
            if env.payload.status == "down":
                self.people.discard(env.sender)
            else:
                self.people.add(env.sender)
            self._people_changed.set()
        elif isinstance(env.payload, Control) and env.payload.action == "park":
            self.parked = env.payload
            self.final_seen.set()  # nothing more happens here: the run ends for now

    async def _catch_up(self) -> None:
        """After a reconnect, take in from the log what was published meanwhile."""
        for record in await runlog.fetch_run(self.bus, self.run_id):
            if record.envelope is not None:
                await self._observe(record.envelope, logged=True)

    async def log_so_far(self) -> list[LogRecord]:
        """The run's log so far (a resumed run)."""
        return await runlog.fetch_run(self.bus, self.run_id)

    async def take_in(self, envelopes: list[Envelope]) -> None:
        """Messages of the log so far, seen as if they had been followed live."""
        for env in envelopes:
            await self._observe(env, logged=True)

    async def resumed(self, messages: int, before: int) -> None:
        """Mark in the log where the run was continued (a re-run leaves out what the stop
        cut off before it). The park read from the log so far is over: the run goes on."""
        self.parked = None
        self.final_seen.clear()
        times = f" (resumed {before} times before)" if before else ""
        reason = f"continued after {messages} messages{times}"
        await self.bus.send(
            self.run_id, "runner/0", Control(action="resumed", reason=reason, by="runner")
        )

    async def send_goal(self, goal: Goal) -> None:
        """Start the run."""
        await self.bus.send(self.run_id, "runner/0", goal)

    async def wait_final(self, timeout: float | None) -> None:
        """Until the final message (or the timeout, which is logged)."""
        try:
            await asyncio.wait_for(self.final_seen.wait(), timeout)
        except TimeoutError:
            log.error("no final message in time", run=self.run_id)
            return
        await self._keep_final()

    async def _keep_final(self) -> None:
        """Store the final message seen as it was published, under its own id (the stream
        keeps one copy): the manager is stopped next, and a store of its own still waiting
        for the stream (a cluster electing a leader) would end with it."""
        final = self._final_live
        if final is None:
            return
        with contextlib.suppress(BusError):
            await self.bus.store(subject_for(final), encode(final), final.id)

    async def ratings_window(self, window_s: float) -> None:
        """After the final: wait while people are attached, for at most ``window_s``, so
        they can rate the results (the roles still learn from ratings meanwhile)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(window_s):
                while self.people:
                    self._people_changed.clear()
                    await self._people_changed.wait()

    async def abort(self, reason: str = "interrupted") -> None:
        """On Ctrl-C (or a sandbox that could not start): ask the manager to stop cleanly
        and give it a moment to say so."""
        with contextlib.suppress(Exception):
            control = Control(action="abort", reason=reason, by="runner")
            await self.bus.send(self.run_id, "runner/0", control)
            await asyncio.wait_for(asyncio.shield(self.final_seen.wait()), 5)

    async def export(self, roles: list[Role[Any]], path: Path) -> Path:
        """Stop the roles (they finish reacting first), then export the whole log (and remove
        the run's work queues, unless it parked: a resume takes them up)."""
        for role in reversed(roles):
            await role.stop()
        with contextlib.suppress(BusError):
            await self.bus.flush()
        exported = await runlog.export_jsonl(self.bus, self.run_id, path)
        for _ in range(FINAL_STORE_TRIES):  # a clustered stream may store the final late
            if exported.final or not self.final_seen.is_set():
                break
            await asyncio.sleep(FINAL_STORE_WAIT_S)
            exported = await runlog.export_jsonl(self.bus, self.run_id, path)
        self.exported = True
        self.view.state.heartbeats = exported.heartbeats  # the exact count the file left out
        log.info("exported run log", path=str(path), messages=exported.messages)
        if self.parked is None:
            with contextlib.suppress(BusError):  # the server drops idle queues anyway
                await workqueue.delete_run_queues(self.bus, self.run_id)
        return path
