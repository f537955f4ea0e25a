"""Test helpers for people taking part in a run: a real CLI process driven through its
stdin, and a watcher of a run's messages on the bus (for tests that act as a person)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from bus import Bus, Envelope, subjects

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")

SLOW = """
name: slow
goal: {text: Explain what a factorial is and compute a big one.}
models: {default: {provider: scripted}}
sandbox: {timeout_s: 120, pool_size: 1}
budgets: {wall_s: 120}
script:
  planner:
    - answer:
        success_criteria: [a factorial is explained and computed]
        tasks:
          - {id: explain, role: researcher, description: Explain what a factorial is., outputs: [meaning]}
          - {id: crunch, role: coder, description: Compute the factorial of a million., inputs: [meaning], outputs: [answer], depends_on: [explain]}
  researcher:
    - answer: {outputs: {meaning: "n! is the product of the whole numbers from 1 to n"}}
  coder:
    - answer: "```python\\nimport time\\ntime.sleep(100)\\n```"
"""
"""A scripted run whose coder sleeps 100 s: busy until it is stopped (aborted, killed)."""


class Proc:
    """A real ``society`` process: write lines to its stdin, wait for lines of its output."""

    def __init__(self, proc: asyncio.subprocess.Process, name: str) -> None:
        self.proc = proc
        self.name = name
        self.lines: list[str] = []
        self._read = 0

    @classmethod
    async def start(cls, *args: str, name: str = "society", session: bool = False) -> Proc:
        """Start ``python -m society.cli ARGS`` with stdout and stderr merged (``session``: in
        a process group of its own, to be killed whole)."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "society.cli",
            *args,
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=session,
        )
        return cls(proc, name)

    async def send(self, line: str) -> None:
        """Type one line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def expect(self, pattern: str, timeout: float = 30.0) -> str:
        """The first line from here on matching ``pattern``; fails with the transcript."""
        regex = re.compile(pattern)
        assert self.proc.stdout is not None
        try:
            async with asyncio.timeout(timeout):
                while True:
                    while self._read < len(self.lines):
                        line = self.lines[self._read]
                        self._read += 1
                        if regex.search(line):
                            return line
                    raw = await self.proc.stdout.readline()
                    if not raw:
                        break
                    self.lines.append(raw.decode(errors="replace").rstrip("\n"))
        except TimeoutError:
            pass
        raise AssertionError(f"{self.name}: no line matching {pattern!r} in:\n{self.transcript}")

    async def finish(self, timeout: float = 30.0) -> int:
        """Wait for the exit (reading the rest of the output); returns the exit code."""
        assert self.proc.stdout is not None
        try:
            async with asyncio.timeout(timeout):
                while raw := await self.proc.stdout.readline():
                    self.lines.append(raw.decode(errors="replace").rstrip("\n"))
                return await self.proc.wait()
        except TimeoutError:
            raise AssertionError(f"{self.name} did not exit:\n{self.transcript}") from None

    def stop(self) -> None:
        """Kill it if it is still running (test clean-up)."""
        if self.proc.returncode is None:
            self.proc.kill()

    @property
    def transcript(self) -> str:
        """Everything it printed so far."""
        return "\n".join(self.lines)


class Watch:
    """Every message of a run on the bus, and waiting for a particular one."""

    def __init__(self, bus: Bus, run_id: str) -> None:
        self.bus = bus
        self.run_id = run_id
        self.seen: list[Envelope] = []
        self._arrived = asyncio.Event()
        self._run: asyncio.Task[Any] | None = None

    def during(self, run: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Start the run; waiting for a message fails at once if the run ends first."""
        task = asyncio.get_running_loop().create_task(run)
        task.add_done_callback(lambda _: self._arrived.set())
        self._run = task
        return task

    async def start(self) -> Watch:
        """Subscribe (before the run starts, so nothing is missed)."""
        await self.bus.subscribe(subjects.run_wildcard(self.run_id), self._on)
        await self.bus.flush()
        return self

    async def _on(self, env: Envelope) -> None:
        self.seen.append(env)
        self._arrived.set()

    async def wait_for(
        self, kind: str, where: Callable[[Any], bool] = lambda p: True, timeout: float = 30.0
    ) -> Envelope:
        """The first message of type ``kind`` whose payload satisfies ``where``."""
        checked = 0
        try:
            async with asyncio.timeout(timeout):
                while True:
                    for env in self.seen[checked:]:
                        if env.payload.type == kind and where(env.payload):
                            return env
                    checked = len(self.seen)
                    if self._run is not None and self._run.done():
                        outcome = self._run.exception() or self._run.result()
                        msg = f"the run ended before a {kind} came: {outcome!r}"
                        raise AssertionError(msg)
                    self._arrived.clear()
                    await self._arrived.wait()
        except TimeoutError:
            seen = [f"{e.sender} {e.payload.type}" for e in self.seen]
            raise AssertionError(f"no {kind} within {timeout:g}s; seen: {seen}") from None

    async def send(self, sender: str, payload: Any, **kw: Any) -> str:
        """Publish as ``sender`` (a person, in tests that act as one)."""
        return await self.bus.send(self.run_id, sender, payload, **kw)
