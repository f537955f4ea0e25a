"""The runner: wires a scenario into a running society and sees it to the end.

It starts (or connects to) NATS, creates the run-log stream, starts the sandbox pool
and every role (each role instance with its own connection), publishes the goal, shows
progress, waits for the final message, and then exports the log, removes the run's work
queues and writes the summary under ``runs/<run_id>/``. Every resource is held by an
`AsyncExitStack`, so an error, Ctrl-C or SIGTERM cleans up the server, the containers
and the connections.

With ``workers="external"`` it starts only the manager: the other roles are
`society worker` processes (any host) that join the run when its goal appears.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import shutil
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import structlog
from rich.console import Console

from bus import (
    Bus,
    BusError,
    ConnectOptions,
    EmbeddedServer,
    Envelope,
    logfile,
    runlog,
    subjects,
    workqueue,
)
from bus.payloads import Control, Final, Goal
from roles.base import Role
from roles.budget_guard import BudgetGuard
from roles.coder import CodeRunner
from roles.memory import Corpus, Memory
from society.artifacts import restore_artifacts
from society.assembly import ROLE_CLASSES, Collaborators, build_role
from society.connect import connect_options
from society.errors import ModelConfigError, RunError
from society.human import human_in_run
from society.live import LiveView, render_summary
from society.models.factory import ModelFactory
from society.models.prices import price_for
from society.models.spec import ModelSpec
from society.progress import RunState
from society.redact import redact
from society.replay.recorded import Recorded
from society.replay.sandbox import ReplaySandbox
from society.scenario import WORKER_ROLES, Scenario

__all__ = [
    "Companion",
    "RunOptions",
    "RunOutcome",
    "SandboxFactory",
    "new_run_id",
    "run_scenario",
]

log = structlog.get_logger("runner")

SandboxFactory = Callable[[Scenario, str], AbstractAsyncContextManager[CodeRunner]]
Companion = Callable[[ConnectOptions, str], AbstractAsyncContextManager[object]]
"""Something that joins a run beside the roles, given the connection and the run id."""


def new_run_id(name: str) -> str:
    """``<scenario>-<UTC time>-<random>``: readable, sortable, unique."""
    return f"{name}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


@dataclass
class RunOptions:
    """How to run a scenario."""

    nats_url: str | None = None
    runs_dir: Path = Path("runs")
    run_id: str | None = None
    model_override: ModelSpec | None = None
    memory_dir: Path | None = None
    live: bool = True
    sandbox_factory: SandboxFactory | None = None
    recorded: Recorded | None = None
    """Re-run from this log: model answers and sandbox results come from it."""
    live_after_recorded: bool = False
    """Fork: once the recording is used up, continue with the real models and sandbox."""
    pace: bool = True
    """In a re-run, wait the recorded latencies (timing-dependent behaviour replays too)."""
    origin: str | None = None
    grace_s: float = 30.0
    """How long past the wall-clock budget the runner waits for the final message."""
    human: str | None = None
    """Make this terminal the run's human under this name ('' for the login name)."""
    companions: list[Companion] = field(default_factory=list)
    """Joined before the goal is sent, left at the end (a re-run's recorded people)."""
    workers: Literal["inprocess", "external"] = "inprocess"
    """Run every role here, or only the manager and wait for `society worker` processes."""
    stream_replicas: int = 1
    """Replicas of the run-log stream when this run creates it (3 on a 3-node cluster)."""


@dataclass
class RunOutcome:
    """What a run produced and where."""

    run_id: str
    run_dir: Path
    final: Final | None
    log_path: Path | None
    state: RunState

    @property
    def exit_code(self) -> int:
        """0 when the run succeeded, else 1."""
        return 0 if self.final is not None and self.final.status == "succeeded" else 1


def _default_sandbox(scenario: Scenario, run_id: str) -> AbstractAsyncContextManager[CodeRunner]:
    from sandbox import Sandbox

    return cast(AbstractAsyncContextManager[CodeRunner], Sandbox(scenario.sandbox, label=run_id))


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


async def run_scenario(
    scenario: Scenario, options: RunOptions | None = None, console: Console | None = None
) -> RunOutcome:
    """Run ``scenario`` to its final message; returns the outcome (never leaves processes)."""
    options = options or RunOptions()
    console = console or Console(stderr=True)
    run_id = options.run_id or new_run_id(scenario.name)
    subjects.check_token(run_id, "run id")
    run_dir = (options.runs_dir / run_id).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    scenario_doc = redact({**scenario.model_dump(mode="json"), "base_dir": str(scenario.base_dir)})
    _write_json(run_dir / "scenario.json", scenario_doc)
    state = RunState(run_id)
    final_seen = asyncio.Event()
    roles: list[Role] = []
    log_path: Path | None = None

    async with AsyncExitStack() as stack:
        url = options.nats_url
        if url is None:
            server = EmbeddedServer(run_dir / "nats")
            console.print(f"[dim]starting nats-server (JetStream in {server.store_dir})…[/]")
            await stack.enter_async_context(server)
            url = server.url
            _write_json(run_dir / "server.json", {"url": url, "pid": server.pid, "run_id": run_id})
        connect = connect_options(url, role="manager")
        observer = Bus(connect, name=f"{run_id}-runner", durable=True)
        await stack.enter_async_context(observer)
        await runlog.ensure_stream(observer, replicas=options.stream_replicas)

        view = LiveView(console, state, budget_limits(scenario), quiet=options.human is not None)
        seen: set[str] = set()

        async def observe(env: Envelope) -> None:
            if env.id in seen:
                return
            seen.add(env.id)
            view.update(env)
            if isinstance(env.payload, Final):
                final_seen.set()

        async def catch_up() -> None:
            """After a reconnect, take in from the log what was published meanwhile."""
            for record in await runlog.fetch_run(observer, run_id):
                if record.envelope is not None:
                    await observe(record.envelope)

        await observer.subscribe(subjects.run_wildcard(run_id), observe)
        observer.on_reconnect(catch_up)
        await observer.flush()
        external = options.workers == "external"

        memory_dir = options.memory_dir or (
            Path(scenario.roles.reflector.memory_dir)
            if scenario.roles.reflector.memory_dir
            else options.runs_dir / "memory"
        )
        memory_dir.mkdir(parents=True, exist_ok=True)
        if (memory_dir / "memory.sqlite3").exists():  # what recall will see, for exact re-runs
            shutil.copyfile(memory_dir / "memory.sqlite3", run_dir / "memory-at-start.sqlite3")
        memory = Memory(memory_dir.resolve())
        stack.callback(memory.close)
        corpus_paths = [scenario.base_dir / p for p in scenario.roles.researcher.corpus]
        missing = [str(p) for p in corpus_paths if not p.exists()]
        if missing:
            text = f"corpus path(s) not found: {', '.join(missing)}"
            raise RunError(text)
        corpus = Corpus(corpus_paths)

        factory_models = dict(scenario.models)
        if options.model_override is not None:
            factory_models = dict.fromkeys(scenario.models, options.model_override)
        _check_prices(scenario, factory_models)
        recorded = options.recorded
        factory = ModelFactory(
            factory_models,
            {}
            if recorded is not None and not options.live_after_recorded
            else scenario.scripted_answers(),
            recorded=recorded.calls() if recorded is not None else None,
            live_after_recorded=options.live_after_recorded,
            pace=options.pace,
        )

        make_sandbox = options.sandbox_factory or _default_sandbox
        runner_sandbox: CodeRunner | None = None
        if external:
            console.print("[dim]only the manager runs here; waiting for workers…[/]")
        elif recorded is not None and not options.live_after_recorded:
            runner_sandbox = ReplaySandbox(recorded.executions, pace=options.pace)
        else:
            console.print("[dim]starting the sandbox pool…[/]")
            runner_sandbox = await stack.enter_async_context(make_sandbox(scenario, run_id))
            if recorded is not None:
                runner_sandbox = ReplaySandbox(
                    recorded.executions, fallback=runner_sandbox, pace=options.pace
                )

        shared = Collaborators(memory, BudgetGuard(scenario.budgets), corpus, runner_sandbox)
        for name in ROLE_CLASSES:
            if external and name != "manager":
                continue
            instances = getattr(scenario.roles, name).instances if name in WORKER_ROLES else 1
            for i in range(instances):
                role = build_role(
                    name,
                    scenario,
                    run_id=run_id,
                    connect=connect,
                    instance=str(i),
                    factory=factory,
                    run_dir=run_dir,
                    shared=shared,
                )
                await role.start()
                roles.append(role)
                stack.push_async_callback(role.stop)

        goal = Goal(
            text=scenario.goal.text,
            inputs=scenario.goal.inputs,
            scenario=scenario_doc,
            origin=options.origin,
        )
        for companion in options.companions:
            await stack.enter_async_context(companion(connect, run_id))
        console.print(f"[bold]run {run_id}[/]: {scenario.goal.text}", highlight=False)
        if options.human is not None:  # this terminal takes part (society.human)
            await stack.enter_async_context(
                human_in_run(connect, run_id, options.human or None, console)
            )
        else:
            where = f" --nats {url}" if options.nats_url else f" --runs-dir {options.runs_dir}"
            console.print(f"[dim]take part: society attach {run_id}{where}[/]", highlight=False)
        with view:
            await observer.send(run_id, "runner/0", goal)
            wall = scenario.budgets.wall_s
            try:
                await asyncio.wait_for(
                    final_seen.wait(), None if wall is None else wall + options.grace_s
                )
            except TimeoutError:
                log.error("no final message in time", run=run_id)
            except asyncio.CancelledError:
                await _abort(observer, run_id, final_seen)
                await _export(observer, roles, run_id, run_dir / "log.jsonl")
                raise
        log_path = await _export(observer, roles, run_id, run_dir / "log.jsonl")

    if external and state.final is not None:  # the coders wrote them on their machines
        restore_artifacts(logfile.read_jsonl(log_path).records, state.final, run_dir)
    outcome = RunOutcome(run_id, run_dir, state.final, log_path, state)
    _write_json(run_dir / "summary.json", _summary(outcome))
    if options.live:
        render_summary(console, state, run_dir, log_path, budget_limits(scenario))
    return outcome


def budget_limits(scenario: Scenario) -> dict[str, float | None]:
    """Each budget's limit, for the live view and the summary."""
    b = scenario.budgets
    return {
        "wall_s": b.wall_s,
        "tokens": b.tokens,
        "cost": b.cost,
        "calls": b.calls,
        "sandbox_s": b.sandbox_s,
        "replans": b.replans,
    }


def _check_prices(scenario: Scenario, models: dict[str, ModelSpec]) -> None:
    """With a cost budget, every model in use must have a price (else the budget means nothing)."""
    if scenario.budgets.cost is None:
        return
    used = set(scenario.roles.model_names().values())
    unknown = sorted(
        f"{name} ({spec.model_name()})"
        for name, spec in models.items()
        if name in used and price_for(spec) is None
    )
    if unknown:
        msg = (
            f"a cost budget is set but these models have no known price: {', '.join(unknown)}; "
            "give each a price (price: {input: USD per 1M tokens, output: ...}) or drop budgets.cost"
        )
        raise ModelConfigError(msg)


async def _export(observer: Bus, roles: list[Role], run_id: str, path: Path) -> Path:
    """Stop the roles (they finish reacting first), then export the whole log."""
    for role in reversed(roles):
        await role.stop()
    with contextlib.suppress(BusError):
        await observer.flush()
    count = await runlog.export_jsonl(observer, run_id, path)
    log.info("exported run log", path=str(path), messages=count)
    with contextlib.suppress(BusError):  # the server drops idle queues anyway
        await workqueue.delete_run_queues(observer, run_id)
    return path


async def _abort(bus: Bus, run_id: str, final_seen: asyncio.Event) -> None:
    """On Ctrl-C: ask the manager to stop cleanly and give it a moment to say so."""
    with contextlib.suppress(Exception):
        await bus.send(
            run_id, "runner/0", Control(action="abort", reason="interrupted", by="runner")
        )
        await asyncio.wait_for(asyncio.shield(final_seen.wait()), 5)


def _summary(outcome: RunOutcome) -> dict[str, Any]:
    s = outcome.state
    final = outcome.final
    return {
        "run_id": outcome.run_id,
        "status": final.status if final else "no final message",
        "reason": final.reason if final else "",
        "answer": final.answer if final else None,
        "tasks": {
            t.id: {"role": t.role, "state": t.state, "attempts": t.attempts}
            for t in s.tasks.values()
        },
        "model_calls": s.calls,
        "tokens_in": s.tokens_in,
        "tokens_out": s.tokens_out,
        "cost": s.cost,
        "sandbox_s": s.sandbox_s,
        "replans": s.replans,
        "critiques": [c.model_dump() for c in s.critiques],
        "max_in_flight": s.max_in_flight,
        "messages": s.messages,
        "log": str(outcome.log_path) if outcome.log_path else None,
    }
