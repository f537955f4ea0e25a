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
import secrets
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from bus import EmbeddedServer, logfile, subjects
from bus.payloads import Goal
from roles.base import Role
from roles.budget import BudgetGuard
from roles.manager.manager import Manager
from roles.manager.restore import Restored, rebuild, resume
from roles.solutions import keep_solution
from society.credentials import OWNER, RunAccess, RunCredentials
from society.errors import ModelConfigError
from society.human import human_in_run
from society.human.session import person_name
from society.models.factory import ModelFactory
from society.models.preflight import preflight
from society.models.prices import price_for
from society.models.spec import ModelSpec
from society.redact import redact
from society.run.artifacts import restore_artifacts
from society.run.assembly import build_role, run_roles
from society.run.collaborators import collaborators
from society.run.in_force import checks_line, in_force
from society.run.limits_host import LimitsHost
from society.run.observer import RunObserver, to_the_end
from society.run.options import Companion, ModelFactoryMaker, RunOptions, ToolsMaker
from society.run.outcome import RunOutcome, write_json, write_outcome
from society.run.resumption import Stopped, answers_to_serve_again, remaining_script
from society.run.starting import StartingRunner, failed, unless_failed
from society.scenario import Scenario
from society.tracing.live import from_environment
from society.view.live import LiveView, render_summary
from society.view.progress import RunState
from society.view.terminal_text import safe_line

__all__ = [
    "Companion",
    "ModelFactoryMaker",
    "RunOptions",
    "RunOutcome",
    "ToolsMaker",
    "new_run_id",
    "run_scenario",
]


def new_run_id(name: str) -> str:
    """``<scenario>-<UTC time>-<random>``: readable, sortable, unique."""
    return f"{name}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


def _default_models(scenario: Scenario, models: dict[str, ModelSpec]) -> ModelFactory:
    return ModelFactory(models, scenario.scripted_answers())


async def run_scenario(
    scenario: Scenario, options: RunOptions | None = None, console: Console | None = None
) -> RunOutcome:
    """Run ``scenario`` to its final message; returns the outcome (never leaves processes)."""
    options = options or RunOptions()
    console = console or Console(stderr=True)
    run_id = options.run_id or new_run_id(scenario.name)
    subjects.check_token(run_id, "run id")
    external = options.workers == "external"
    if options.model_override is not None:  # recorded as the models the run used
        override = options.model_override
        scenario = scenario.model_copy(update={"models": dict.fromkeys(scenario.models, override)})
    factory = _models(scenario, options)
    await preflight(factory, _model_uses(scenario, external))
    if options.sandbox_manifest and scenario.sandbox.manifest is None:
        # what the image holds, recorded with the scenario: the coder's prompt names it
        from sandbox.images import with_manifest  # Docker's client loads only when needed

        filled = await asyncio.to_thread(with_manifest, scenario.sandbox)
        scenario = scenario.model_copy(update={"sandbox": filled})
    scenario = in_force(scenario)  # what the log records is what was in force
    run_dir = (options.runs_dir / run_id).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    scenario_doc = redact({**scenario.model_dump(mode="json"), "base_dir": str(scenario.base_dir)})
    write_json(run_dir / "scenario.json", scenario_doc)
    state = RunState(run_id)
    limits = scenario.budgets.limits()
    roles: list[Role[Any]] = []
    already_finished = False
    parked: str | None = None

    log_path = run_dir / "log.jsonl"
    try:
        async with AsyncExitStack() as stack:
            person = person_name(options.human or None) if options.human is not None else None
            identities = _identities(scenario, external, person)
            tracer = from_environment("runner", runner=True)
            if tracer is not None:
                stack.enter_context(tracer)
            access = await _nats(stack, options, run_dir, run_id, identities, console)
            url = access.url
            view = LiveView(console, state, limits, quiet=options.human is not None)
            observer = await stack.enter_async_context(
                RunObserver(access.connect(OWNER), run_id, view)
            )
            await observer.start(replicas=options.stream_replicas)
            stack.push_async_callback(_export_once, observer, roles, log_path)
            stopped = (
                await _where_it_stopped(observer, factory, scenario) if options.resume else None
            )
            if stopped is not None and stopped.final is not None:
                already_finished = True
                status = stopped.final.status
                console.print(f"run {run_id} had already finished ({status}): nothing to resume")
                console.print(f"[dim]log: {log_path}[/]", highlight=False)
                await _export_once(observer, roles, log_path)
                if options.sandbox_factory is None and not external:
                    await _leftovers_removed(run_id, console)
                return write_outcome(run_id, run_dir, state, log_path, already_finished=True)
            resuming = stopped is not None and stopped.goal is not None
            if stopped is not None and resuming:
                await observer.resumed(len(stopped.envelopes), stopped.resumes)
            guard = BudgetGuard(scenario.budgets)
            if stopped is not None:
                stopped.seed(guard)
            host = LimitsHost(access.connect(OWNER), run_id, guard, factory.limiter)
            await stack.enter_async_context(host)
            shared = await collaborators(stack, scenario, options, run_dir, run_id, console, guard)
            restored: Restored | None = None
            for name, run_role in run_roles(scenario).items():
                if external and name != "manager":
                    continue
                for i in range(run_role.instances):
                    role = build_role(
                        name,
                        scenario,
                        run_id=run_id,
                        connect=access.connect(f"{name}/{i}"),
                        instance=str(i),
                        factory=factory,
                        run_dir=run_dir,
                        shared=shared,
                    )
                    if isinstance(role, Manager) and stopped is not None and resuming:
                        restored = rebuild(role, stopped.envelopes)
                        role.adopt(restored.state)
                    await role.start()
                    roles.append(role)
                    stack.push_async_callback(role.stop)
            for companion in options.companions:
                await stack.enter_async_context(companion(access.connect(OWNER), run_id))
            console.print(
                f"[bold]run {run_id}[/]: {escape(safe_line(scenario.goal.text))}", highlight=False
            )
            console.print(f"[dim]{checks_line(scenario)}[/]", highlight=False)
            if scenario.sandbox.manifest is not None:
                held = scenario.sandbox.manifest.described()
                console.print(f"[dim]sandbox {scenario.sandbox.image}: {held}[/]", highlight=False)
            if person is not None:  # this terminal takes part (society.human)
                connect = access.connect(f"human/{person}")
                await stack.enter_async_context(human_in_run(connect, run_id, person, console))
            else:
                where = f" --nats {url}" if options.nats_url else f" --runs-dir {options.runs_dir}"
                console.print(f"[dim]take part: society attach {run_id}{where}[/]", highlight=False)
                again = f"society resume {run_id}{where}"
                console.print(f"[dim]if this process dies: {again}[/]", highlight=False)
            goal = Goal(
                text=scenario.goal.text,
                inputs=scenario.goal.inputs,
                deliverable=scenario.goal.deliverable,
                scenario=scenario_doc,
                origin=options.origin,
            )
            with view:
                manager = next((r for r in roles if isinstance(r, Manager)), None)
                if manager is not None and restored is not None:
                    await resume(manager, restored)
                else:
                    await observer.send_goal(goal)
                wall = scenario.budgets.wall_s
                final = observer.wait_final(None if wall is None else wall + options.grace_s)
                code = shared.sandbox
                starting = code.start if isinstance(code, StartingRunner) else None
                try:
                    await unless_failed(final, starting)
                except BaseException as exc:
                    # Ctrl-C, SIGTERM or a sandbox that could not start: stop, keep the log.
                    no_sandbox = failed(starting)
                    if no_sandbox or isinstance(exc, asyncio.CancelledError):
                        why = "the sandbox could not start" if no_sandbox else "interrupted"
                        await to_the_end(observer.abort(why))
                        await _export_once(observer, roles, log_path)
                    raise
            if isinstance(code, StartingRunner):  # the run is over: close it during the export
                code.begin_close()
            parked = observer.parked.reason if observer.parked else None
            window = scenario.roles.human.rating_window_s
            if state.final is not None and observer.people and window > 0:
                console.print(f"[dim]ratings are open for {window:g}s while people are attached[/]")
                await observer.ratings_window(window)
            await _export_once(observer, roles, log_path)
            if state.final is not None and state.final.status == "succeeded":
                keep_solution(shared.memory, log_path, run_id)  # from the whole log

    finally:  # interrupted or not: the summary of what happened, with the log
        outcome = write_outcome(
            run_id, run_dir, state, log_path, already_finished=already_finished, parked=parked
        )
    if external and state.final is not None:  # the coders wrote them on their machines
        restore_artifacts(logfile.read_jsonl(log_path).records, state.final, run_dir)
    if options.live:
        render_summary(console, state, run_dir, log_path, limits)
    if parked is not None and state.final is None:
        where = (
            f"--nats {options.nats_url}" if options.nats_url else f"--runs-dir {options.runs_dir}"
        )
        again = f"society resume {run_id} {where} --human"
        console.print(
            f"[yellow]parked[/]: {escape(parked)}; continue with: {again}", highlight=False
        )
    return outcome


async def _where_it_stopped(
    observer: RunObserver, factory: ModelFactory, scenario: Scenario
) -> Stopped:
    """A resumed run's log so far (taken into the live view), with the models set to go on
    where it stopped."""
    records = await observer.log_so_far()
    stopped = Stopped.of(records)
    await observer.take_in(stopped.envelopes)
    if stopped.goal is not None:
        served = [r.envelope for r in records if r.envelope is not None]  # cut off or not
        script = remaining_script(scenario.scripted_answers(), served)
        factory.continue_from(answers_to_serve_again(records), script)
    return stopped


async def _leftovers_removed(run_id: str, console: Console) -> None:
    """Remove the sandbox containers a killed run's pool had made and not started."""
    from sandbox import SandboxError, gc  # Docker's client loads only when needed

    try:
        await gc(run_id)
    except SandboxError as exc:
        console.print(f"[dim]could not check for leftover sandbox containers: {exc}[/]")


async def _export_once(observer: RunObserver, roles: list[Role[Any]], log_path: Path) -> None:
    """Export the run's log (stopping the roles first), once, whatever cancels us meanwhile."""
    if not observer.exported:
        await to_the_end(observer.export(roles, log_path))


def _identities(scenario: Scenario, external: bool, person: str | None) -> list[str]:
    """Every sender this process connects as: the owner, each role instance, the person."""
    senders = [OWNER]
    for name, role in run_roles(scenario).items():
        if external and name != "manager":
            continue
        senders += [f"{name}/{i}" for i in range(role.instances)]
    if person is not None:
        senders.append(f"human/{person}")
    return senders


async def _nats(
    stack: AsyncExitStack,
    options: RunOptions,
    run_dir: Path,
    run_id: str,
    identities: list[str],
    console: Console,
) -> RunAccess:
    """The run's NATS: the given server, or an embedded one in the run folder that lets in
    only the run's identities (each with its own credential in ``creds/``)."""
    if options.nats_url is not None:
        return RunAccess(options.nats_url)
    creds = RunCredentials(run_dir, run_id)
    for sender in identities:
        creds.issue(sender)
    server = EmbeddedServer(run_dir / "nats", config_file=creds.write_config())
    console.print(f"[dim]starting nats-server (JetStream in {server.store_dir})…[/]")
    await stack.enter_async_context(server)
    where = {"url": server.url, "pid": server.pid, "run_id": run_id, "creds": str(creds.folder)}
    write_json(run_dir / "server.json", where)
    return RunAccess(server.url, creds)


def _model_uses(scenario: Scenario, external: bool) -> list[tuple[str, str]]:
    """(model, role) of every model-using role this process runs."""
    return [
        (model, role)
        for role, model in scenario.model_uses().items()
        if not external or role == "manager"
    ]


def _models(scenario: Scenario, options: RunOptions) -> ModelFactory:
    """The roles' model clients (every model replaced by ``--model`` when given)."""
    models = dict(scenario.models)
    _check_prices(scenario, models)
    return (options.model_factory or _default_models)(scenario, models)


def _check_prices(scenario: Scenario, models: dict[str, ModelSpec]) -> None:
    """With a cost budget, every model in use must have a price (else the budget means nothing)."""
    if scenario.budgets.cost is None:
        return
    used = set(scenario.model_uses().values())
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
