"""Real `society worker` processes for the distributed tests, and a log watcher.

Workers run as subprocesses of this Python (``python -m society.cli worker ...``), die
with the test process (PR_SET_PDEATHSIG), and are waited for on their own "ready" line —
never on a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bus import Bus, Envelope, subjects

_LIBC = ctypes.CDLL(None, use_errno=True)


def die_with_parent() -> None:
    """Run in a child between fork and exec: it is killed when this test process dies."""
    _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@dataclass
class WorkerProc:
    """One `society worker` process and what it printed."""

    role: str
    instance: str
    url: str
    proc: asyncio.subprocess.Process
    lines: list[str] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    _reader: asyncio.Task[None] | None = None
    _more: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def sender(self) -> str:
        return f"{self.role}/{self.instance}"

    def output(self) -> str:
        return "\n".join(self.lines[-40:])

    async def _read(self) -> None:
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            async with self._more:
                self.lines.append(line)
                self._more.notify_all()
            if f"worker {self.instance} ready" in line:
                self.ready.set()

    async def said(self, text: str, timeout: float = 30.0) -> str:
        """Wait (bounded) until the worker has printed a line containing ``text``."""
        async with asyncio.timeout(timeout), self._more:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                await self._more.wait()

    def kill(self) -> None:
        """SIGKILL: no goodbye, no hand-back."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)

    async def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM, then SIGKILL if it does not exit in time."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.kill()
                await self.proc.wait()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


async def start_worker(
    role: str, url: str, *, instance: str, run_id: str, runs_dir: Path, extra: Sequence[str] = ()
) -> WorkerProc:
    """Start a worker serving only ``run_id`` (its stderr is collected)."""
    cmd = [
        sys.executable,
        "-m",
        "society.cli",
        "--log-format",
        "json",
        "--log-level",
        "info",
        "worker",
        "--role",
        role,
        "--nats",
        url,
        "--run",
        run_id,
        "--instance",
        instance,
        "--runs-dir",
        str(runs_dir),
        *extra,
    ]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=die_with_parent,
        env={**os.environ, "COLUMNS": "200"},
    )
    worker = WorkerProc(role, instance, url, proc)
    worker._reader = asyncio.get_running_loop().create_task(worker._read())
    return worker


@contextlib.asynccontextmanager
async def workers(
    specs: Sequence[tuple[str, str, str]], *, run_id: str, runs_dir: Path, ready_s: float = 60.0
) -> AsyncIterator[dict[str, WorkerProc]]:
    """Start ``(role, instance, url)`` workers together, wait until all are ready, stop them after."""
    procs = [
        await start_worker(role, url, instance=inst, run_id=run_id, runs_dir=runs_dir)
        for role, inst, url in specs
    ]
    try:
        for w in procs:
            waiter = asyncio.ensure_future(w.ready.wait())
            died = asyncio.ensure_future(w.proc.wait())
            await asyncio.wait({waiter, died}, timeout=ready_s, return_when="FIRST_COMPLETED")
            waiter.cancel()
            died.cancel()
            assert w.ready.is_set(), f"{w.sender} did not get ready:\n{w.output()}"
        yield {w.instance: w for w in procs}
    finally:
        await asyncio.gather(*(w.stop() for w in procs))


class Watcher:
    """Everything of a run as it is published, to wait on with a bounded timeout."""

    def __init__(self, bus: Bus, run_id: str) -> None:
        self.bus = bus
        self.run_id = run_id
        self.seen: list[Envelope] = []
        self._changed = asyncio.Condition()

    async def start(self) -> Watcher:
        await self.bus.subscribe(subjects.run_wildcard(self.run_id), self._on)
        await self.bus.flush()
        return self

    async def _on(self, env: Envelope) -> None:
        async with self._changed:
            self.seen.append(env)
            self._changed.notify_all()

    async def first(
        self,
        match: Callable[[Envelope], bool],
        *,
        unless: asyncio.Future[object] | None = None,
        timeout: float = 30.0,
    ) -> Envelope:
        """The first message (seen so far or coming) that ``match``es; fails if ``unless``
        (the run) ends before it comes."""
        found = asyncio.ensure_future(self._first(match))
        waiting: set[asyncio.Future[Any]] = {found} if unless is None else {found, unless}
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if found.done():
            return found.result()
        found.cancel()
        if unless is not None and unless.done():
            raise AssertionError(f"the run ended first: {unless.result()!r}")
        raise TimeoutError(f"no matching message within {timeout:g}s")

    async def _first(self, match: Callable[[Envelope], bool]) -> Envelope:
        async with self._changed:
            while True:
                for env in self.seen:
                    if match(env):
                        return env
                await self._changed.wait()
