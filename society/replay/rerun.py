"""Re-running a recorded run, and forking one.

A re-run starts the society again on the scenario recorded in the log's goal, with every
model answer and sandbox result served from the log (no model API, no Docker), recall
from the long-term memory as it was when the run began, and then compares its message
stream with the recorded one. A fork replays messages 1..N the same way and continues
live — real models and sandbox, or those of a changed scenario — as a new run whose goal
names the original (``origin: <run id>@<N>``).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console

from bus import ConnectOptions, Envelope
from bus.logfile import LogRecord, read_jsonl
from bus.payloads import Goal
from roles.execution import CodeRunner
from society.errors import RunError, UntrustedScenario
from society.exposure import exposure_of
from society.models.factory import ModelFactory
from society.models.spec import ModelSpec
from society.replay.compare import Divergence, first_divergence
from society.replay.people import PeopleReplay
from society.replay.sandbox import ReplaySandbox
from society.replay.source import LogSource
from society.run.assembly import docker_sandbox
from society.run.recorded import Recorded
from society.run.runner import (
    Companion,
    RunOptions,
    RunOutcome,
    new_run_id,
    run_scenario,
)
from society.run.uncut import uncut
from society.scenario import Scenario
from society.tools import Tools
from society.tools.recorded import RecordedTools

__all__ = ["RerunReport", "fork", "fork_scenario", "numbered", "rerun"]


@dataclass(frozen=True)
class RerunReport:
    """The re-run and how it compares with the recording."""

    outcome: RunOutcome
    divergence: Divergence | None

    @property
    def identical(self) -> bool:
        """Whether the re-run sent the same messages as the recording."""
        return self.divergence is None


def numbered(records: list[LogRecord]) -> list[tuple[int, Envelope]]:
    """Valid messages with their 1-based place in the log."""
    return [(n, r.envelope) for n, r in enumerate(records, start=1) if r.envelope is not None]


def _scenario(source: LogSource, recorded: Recorded) -> Scenario:
    scenario = recorded.scenario(source.inputs_dir)
    missing = [c for c in scenario.roles.researcher.corpus if not (scenario.base_dir / c).exists()]
    if missing:
        msg = (
            f"the scenario's corpus ({', '.join(missing)}) is not under {scenario.base_dir}: "
            "replay a bundle made with `society bundle`, which carries it"
        )
        raise RunError(msg)
    return scenario


def _prepare(source: LogSource, options: RunOptions, name: str) -> RunOptions:
    """A fresh run id, and a private memory folder seeded as the original one began."""
    run_id = options.run_id or new_run_id(name)
    memory = (options.runs_dir / run_id / "memory").resolve()
    memory.mkdir(parents=True, exist_ok=True)
    if source.memory_snapshot is not None:
        shutil.copyfile(source.memory_snapshot, memory / "memory.sqlite3")
    return replace(options, run_id=run_id, memory_dir=memory)


def _people(records: list[LogRecord], pace: bool) -> Companion:
    """What the recorded people said, said again in the new run."""

    def join(connect: ConnectOptions, run_id: str) -> PeopleReplay:
        return PeopleReplay(connect, run_id, records, pace)

    return join


def _replaying(
    recorded: Recorded,
    options: RunOptions,
    *,
    live: bool,
    pace: bool,
    run_dir: Path | None = None,
) -> RunOptions:
    """Options whose models and sandbox answer from the recording (then, with ``live``,
    from the real ones: a fork)."""

    def models(scenario: Scenario, specs: dict[str, ModelSpec]) -> ModelFactory:
        # A re-run builds no live client (its secrets need not exist here); a fork does.
        script = scenario.scripted_answers() if live else {}
        return ModelFactory(
            specs, script, recorded=recorded.calls(), live_after_recorded=live, pace=pace
        )

    @contextlib.asynccontextmanager
    async def sandbox(scenario: Scenario, run_id: str) -> AsyncIterator[CodeRunner]:
        if not live:
            yield ReplaySandbox(recorded.executions, pace=pace)
            return
        async with (options.sandbox_factory or docker_sandbox)(scenario, run_id) as real:
            yield ReplaySandbox(recorded.executions, fallback=real, pace=pace)

    @contextlib.asynccontextmanager
    async def tools(scenario: Scenario) -> AsyncIterator[Tools]:
        yield RecordedTools([r.envelope for r in recorded.records if r.envelope], run_dir)

    return replace(
        options,
        model_factory=models,
        sandbox_factory=sandbox,
        tools_factory=None if live else tools,
        sandbox_manifest=live,
    )


def _usable(source: LogSource) -> None:
    if source.stopped_at is not None:
        msg = (
            f"{source.where} is damaged from line {source.stopped_at}: a re-run needs the whole "
            "log (the timeline still shows what could be read)"
        )
        raise RunError(msg)


async def rerun(
    source: LogSource, options: RunOptions, console: Console | None = None, *, pace: bool = True
) -> RerunReport:
    """Run the recorded scenario again from the log and compare the two streams."""
    _usable(source)
    records = uncut(source.records)  # a resumed run, as if it had not stopped
    recorded = Recorded.from_records(records)
    scenario = _scenario(source, recorded)
    opts = _prepare(source, options, scenario.name)
    opts = _replaying(recorded, opts, live=False, pace=pace, run_dir=source.run_dir)
    opts = replace(opts, companions=[*opts.companions, _people(records, pace)])
    outcome = await run_scenario(scenario, opts, console)
    if outcome.log_path is None:
        msg = "the re-run wrote no log"
        raise RunError(msg)
    new = read_jsonl(outcome.log_path).records
    return RerunReport(outcome, first_divergence(numbered(records), numbered(new)))


def fork_scenario(
    source: LogSource,
    at: int,
    scenario: Scenario | None = None,
    *,
    override: ModelSpec | None = None,
    trust: bool = False,
) -> Scenario:
    """The scenario a fork at ``at`` continues on: the person's own (``scenario``), or the
    log's, with its models replaced by ``override`` when given. The log's own is refused
    (`UntrustedScenario`, listing why) when it would start commands, read environment
    variables, contact other hosts or import other clients here, unless ``trust``."""
    goal_at = next(
        (n for n, env in numbered(source.records) if isinstance(env.payload, Goal)), None
    )
    if goal_at is None:
        msg = "the log holds no goal message: nothing can be forked from it"
        raise RunError(msg)
    if not goal_at <= at <= len(source.records):
        msg = (
            f"--fork-at {at}: a fork starts at or after the goal (message {goal_at}); "
            f"use --fork-at {goal_at}..{len(source.records)}"
        )
        raise RunError(msg)
    if scenario is not None:
        return scenario
    chosen = _scenario(source, Recorded.from_records(source.records, upto=at))
    if override is not None:
        chosen = chosen.model_copy(update={"models": dict.fromkeys(chosen.models, override)})
    exposure = exposure_of(chosen, models=override is None)
    if exposure.needs_trust and not trust:
        lines = exposure.lines()
        msg = (
            f"{source.where}'s scenario would, on this machine:\n"
            + "\n".join(f"  - {line}" for line in lines)
            + "\nNothing was started. Fork on a scenario of your own (--scenario FILE, and "
            "--model/--base-url/--api-key-env for your model), or pass --trust-bundle once "
            "you have read this list and accept it."
        )
        raise UntrustedScenario(msg, lines)
    return chosen


async def fork(
    source: LogSource,
    at: int,
    options: RunOptions,
    scenario: Scenario | None = None,
    console: Console | None = None,
    *,
    pace: bool = True,
    override: ModelSpec | None = None,
    trust: bool = False,
) -> RunOutcome:
    """Replay messages 1..``at`` of the log, then continue live as a new run (on the
    person's scenario, or on the log's own once it is trusted: `fork_scenario`)."""
    chosen = fork_scenario(source, at, scenario, override=override, trust=trust)
    recorded = Recorded.from_records(source.records, upto=at)
    opts = _prepare(source, options, chosen.name)
    opts = _replaying(recorded, opts, live=True, pace=pace)
    opts = replace(
        opts,
        origin=f"{recorded.run_id}@{at}",
        companions=[*opts.companions, _people(source.records[:at], pace)],
    )
    return await run_scenario(chosen, opts, console)
