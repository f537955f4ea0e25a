"""`society worker`: one role in its own process, joining runs as they start.

A worker connects to NATS, finds the runs under way (goals with no final message in the
log) and hears new goals. For each run it starts an instance of its role, with its own
connection as in one process, built from the run's scenario: the one the goal carries
(secrets stay ``${ENV}`` references, resolved here), or ``--scenario`` when given (local
paths such as the researcher's corpus, other models). The instance takes its tasks from
the role's work queue, shared with every worker of the role wherever it runs, and leaves
the run shortly after its final message. Ctrl-C or SIGTERM hands tasks in flight back to
the queue, so another worker does them at once.

Scripted models serve answers per process: give worker scenarios ``match`` answers (not
answers in order), so that whichever worker takes a task finds its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import structlog
from pydantic import ValidationError

from bus import Bus, BusError, ConnectOptions, Envelope, runlog, subjects
from bus.payloads import Final, Goal
from bus.subjects import Channel
from roles.base import Role
from roles.execution import CodeRunner
from roles.memory import Corpus, Memory
from roles.shared_budget import RemoteGuard
from sandbox.errors import SandboxError
from society.errors import SocietyError
from society.models.factory import ModelFactory
from society.models.shared_ratelimit import SharedRateLimiter
from society.run.assembly import Collaborators, SandboxFactory, build_role, docker_sandbox
from society.run.starting import StartingRunner
from society.scenario import Scenario

__all__ = ["RoleBuilder", "WorkerHost", "WorkerOptions", "default_instance"]

log = structlog.get_logger("worker")

RoleBuilder = Callable[[Scenario, str, Collaborators], Role[Any]]
"""Makes the role instance for a run: (scenario, run id, collaborators) -> role."""


def default_instance() -> str:
    """``<host>-<pid>``: unique across the machines of a cluster."""
    return subjects.safe_token(f"{socket.gethostname()[:40]}-{os.getpid()}")


@dataclass
class WorkerOptions:
    """What a worker process serves, and how."""

    role: str
    connect: ConnectOptions
    concurrency: int | None = None
    """Tasks at once (default: the scenario's concurrency for the role)."""
    run_id: str | None = None
    """Serve only this run (default: every run that starts)."""
    scenario: Scenario | None = None
    """Use this scenario instead of the one the goal carries."""
    instance: str = field(default_factory=default_instance)
    runs_dir: Path = Path("runs")
    memory_dir: Path | None = None
    linger_s: float = 2.0
    """How long after a run's final message the instance stays (to react to it)."""


@dataclass
class _Joined:
    role: Role[Any]
    stack: AsyncExitStack


class WorkerHost:
    """Starts an instance of one role in every run it joins; ``async with`` it, then `serve`."""

    def __init__(
        self,
        options: WorkerOptions,
        *,
        build: RoleBuilder | None = None,
        sandbox_factory: SandboxFactory | None = None,
    ) -> None:
        self.options = options
        self._build = build or self._build_role
        self._sandbox_factory = sandbox_factory or docker_sandbox
        self.bus = Bus(options.connect, name=f"worker-{options.role}-{options.instance}")
        self.runs: dict[str, _Joined] = {}
        self._done: set[str] = set()
        self._lock = asyncio.Lock()
        self._leaving: set[asyncio.Task[None]] = set()
        self._memory: Memory | None = None
        self.log = log.bind(role=options.role, instance=options.instance)

    async def __aenter__(self) -> WorkerHost:
        await self.bus.connect()
        only = self.options.run_id
        for channel, handler in ((Channel.GOAL, self._on_goal), (Channel.FINAL, self._on_final)):
            pattern = subjects.any_run(channel) if only is None else subjects.subject(only, channel)
            await self.bus.subscribe(pattern, handler)
        await self.bus.flush()
        for goal in await runlog.active_runs(self.bus):
            await self._on_goal(goal)
        self.log.info("worker ready", url=self.bus.connected_url)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in list(self._leaving):
            task.cancel()
        for run_id in list(self.runs):
            await self._leave(run_id)
        await self.bus.close()
        if self._memory is not None:
            self._memory.close()

    async def serve(self) -> None:
        """Serve until cancelled."""
        await asyncio.Event().wait()

    # -- joining and leaving runs ---------------------------------------------------------

    async def _on_goal(self, env: Envelope) -> None:
        run_id = env.run_id
        if not isinstance(env.payload, Goal) or run_id in self.runs or run_id in self._done:
            return
        if self.options.run_id is not None and run_id != self.options.run_id:
            return
        async with self._lock:
            if run_id in self.runs:
                return
            try:
                await self._join(env, env.payload)
            except (
                BusError,
                SandboxError,
                SocietyError,
                ValidationError,
                OSError,
                RuntimeError,
            ) as exc:
                self._done.add(run_id)
                self.log.error("could not join the run", run=run_id, error=str(exc))

    async def _join(self, env: Envelope, goal: Goal) -> None:
        run_id = env.run_id
        scenario = self.options.scenario
        if scenario is None:
            if goal.scenario is None:
                msg = "the goal carries no scenario; start the worker with --scenario"
                raise RuntimeError(msg)
            scenario = Scenario.model_validate(goal.scenario)
        if self.options.role == "coder" and scenario.sandbox.manifest is None:
            from sandbox.images import with_manifest  # Docker's client loads only when needed

            filled = await asyncio.to_thread(with_manifest, scenario.sandbox)
            scenario = scenario.model_copy(update={"sandbox": filled})
        stack = AsyncExitStack()
        try:
            sandbox: CodeRunner | None = None
            if self.options.role == "coder":  # it joins while its pool starts (slow Docker)
                starting = StartingRunner(self._sandbox_factory(scenario, run_id))
                starting.start.add_done_callback(partial(self._sandbox_started, run_id))
                stack.push_async_callback(starting.close)
                sandbox = starting
            tools = None
            uses = scenario.tool_uses().get(self.options.role)
            if uses:  # this worker starts the MCP servers its role may use
                from society.tools.mcp import McpTools

                tools = await stack.enter_async_context(
                    McpTools(scenario.tools, {self.options.role: uses})
                )
            guard = RemoteGuard(self.bus, run_id, self.options.role)
            stack.push_async_callback(guard.drain)  # after the role stops: its last settling
            shared = Collaborators(
                self._shared_memory(),
                guard,
                _corpus(scenario),
                sandbox,
                tools=tools,
            )
            role = self._build(scenario, run_id, shared)
            await role.start()
            stack.push_async_callback(role.stop)
            await role.join(env)
        except BaseException:
            await stack.aclose()
            raise
        self.runs[run_id] = _Joined(role, stack)
        self.log.info("joined run", run=run_id)

    def _sandbox_started(self, run_id: str, start: asyncio.Task[CodeRunner]) -> None:
        """Say why the sandbox could not start (its executions fail with the reason)."""
        if not start.cancelled() and (exc := start.exception()) is not None:
            self.log.error("the sandbox could not start", run=run_id, error=str(exc))

    async def _on_final(self, env: Envelope) -> None:
        if isinstance(env.payload, Final) and env.run_id in self.runs:
            self._done.add(env.run_id)
            task = asyncio.get_running_loop().create_task(self._leave_later(env.run_id))
            self._leaving.add(task)
            task.add_done_callback(self._leaving.discard)

    async def _leave_later(self, run_id: str) -> None:
        await asyncio.sleep(self.options.linger_s)
        await self._leave(run_id)

    async def _leave(self, run_id: str) -> None:
        joined = self.runs.pop(run_id, None)
        if joined is None:
            return
        self._done.add(run_id)
        with contextlib.suppress(Exception):
            await joined.stack.aclose()
        self.log.info("left run", run=run_id)

    # -- building the role ---------------------------------------------------------------------

    def _shared_memory(self) -> Memory:
        if self._memory is None:
            folder = self.options.memory_dir or self.options.runs_dir / "memory"
            folder.mkdir(parents=True, exist_ok=True)
            self._memory = Memory(folder.resolve())
        return self._memory

    def _build_role(self, scenario: Scenario, run_id: str, shared: Collaborators) -> Role[Any]:
        factory = ModelFactory(dict(scenario.models), scenario.scripted_answers())
        factory.shared_limits = partial(SharedRateLimiter, self.bus, run_id, self.options.role)
        run_dir = (self.options.runs_dir / run_id).resolve()
        run_dir.mkdir(parents=True, exist_ok=True)
        return build_role(
            self.options.role,
            scenario,
            run_id=run_id,
            connect=self.options.connect,
            instance=self.options.instance,
            factory=factory,
            run_dir=run_dir,
            shared=shared,
            concurrency=self.options.concurrency,
        )


def _corpus(scenario: Scenario) -> Corpus | None:
    """The researcher's documents, where they exist on this machine."""
    paths = [scenario.base_dir / p for p in scenario.roles.researcher.corpus]
    found = [p for p in paths if p.exists()]
    if len(found) < len(paths):
        missing = ", ".join(str(p) for p in paths if not p.exists())
        log.warning(
            "corpus paths not found here (give --scenario with local ones)", missing=missing
        )
    return Corpus(found) if found else None
