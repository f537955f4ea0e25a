"""``society replay`` and ``society bundle``: read, re-run, fork and pack run logs."""

# No `from __future__ import annotations`: typer reads every command's annotations at each
# start, and evaluating them from strings took 30-40 ms of every `society` command.
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from society.cli.model_options import ModelOptions, model_options
from society.cli.support import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    err,
    escape,
    fail,
    guarded,
    load_or_exit,
    or_exit,
    out,
    run_async,
)
from society.view.terminal_text import safe_line

if TYPE_CHECKING:
    from society.replay.source import LogSource
    from society.run.runner import RunOptions
    from society.scenario import Scenario

__all__ = ["bundle", "replay"]


@model_options()
def replay(
    models: ModelOptions,
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
    trust_bundle: Annotated[
        bool,
        typer.Option(
            "--trust-bundle",
            help="With --fork-at: continue on the log's own scenario even though it starts "
            "commands, reads environment variables or contacts hosts (read the list first)",
        ),
    ] = False,
    pace: Annotated[
        bool, typer.Option("--pace/--no-pace", help="Re-run at the recorded speed")
    ] = True,
    prompt: Annotated[
        int | None,
        typer.Option("--prompt", min=1, help="Show model call N: what it saw and answered"),
    ] = None,
) -> None:
    """Read a run's log as a timeline; show a model call's prompt; re-run it offline and
    compare; or fork it (--model and its options: the model a fork continues with)."""
    import tempfile

    from society.replay import source as sources
    from society.replay import view
    from society.replay.timeline import Filter, entries

    keep = Filter(set(role or []), set(kind or []), set(task or []), since, until)
    where = or_exit(lambda: sources.locate(log, runs_dir=runs_dir, nats_url=nats))
    if follow:
        if not isinstance(where, sources.LiveRun):
            text = f"{log} is a finished run's file; --follow needs a live run id"
            raise fail(text, EXIT_BAD_INPUT)
        run_async(view.follow(where.connect(), where.run_id, keep, out.real, as_json=as_json))
        return
    changed = load_or_exit(scenario) if scenario is not None else None
    with tempfile.TemporaryDirectory(prefix="society-replay-") as scratch:

        def warn(problem: object) -> None:
            err.print(
                f"[yellow]warning:[/] {escape(safe_line(f'{where}: {problem}'))}",
                highlight=False,
                soft_wrap=True,
            )

        if isinstance(where, sources.LiveRun):
            src = guarded(lambda: sources.read_live(where, runs_dir))
        else:
            src = or_exit(lambda: sources.read_local(where, scratch=Path(scratch), on_problem=warn))
        if src.stopped_at is not None:
            err.print(
                f"[yellow]warning:[/] read {len(src.records)} messages; the log is damaged "
                f"from line {src.stopped_at} on",
                highlight=False,
            )
        if prompt is not None:
            from society.replay.prompts import show_prompt

            or_exit(lambda: show_prompt(src.records, src.run_dir, prompt, out.real))
            return
        if rerun or fork_at is not None:
            from society.run.runner import RunOptions  # the whole run machinery: only here

            override = models.spec()
            _rerun_or_fork(
                src,
                RunOptions(nats_url=nats, runs_dir=runs_dir, live=True, model_override=override),
                fork_at,
                changed,
                pace=pace,
                trust=trust_bundle,
            )
            return
        all_entries = entries(src.records)
        if step:
            view.step(all_entries, keep, out.real)
        else:
            view.show(all_entries, keep, out.real, as_json=as_json, as_tree=tree)


def _rerun_or_fork(
    src: "LogSource",
    options: "RunOptions",
    fork_at: int | None,
    changed: "Scenario | None",
    *,
    pace: bool,
    trust: bool,
) -> None:
    from society.errors import RunError, UntrustedScenario
    from society.replay import rerun as reruns
    from society.replay import view

    if fork_at is not None:
        override = options.model_override
        try:  # before anything starts: what the log's own scenario would do here
            reruns.fork_scenario(src, fork_at, changed, override=override, trust=trust)
        except (UntrustedScenario, RunError) as exc:
            raise fail(str(exc), EXIT_BAD_INPUT) from None
        outcome = guarded(
            lambda: reruns.fork(
                src, fork_at, options, changed, err.real, pace=pace, override=override, trust=trust
            )
        )
        out.print(f"fork of {src.run_id}@{fork_at}: run {outcome.run_id} in {outcome.run_dir}")
        raise typer.Exit(outcome.exit_code)
    report = guarded(lambda: reruns.rerun(src, options, err.real, pace=pace))
    view.show_divergence(report.divergence, out.real)
    out.print(f"re-run {report.outcome.run_id}: {report.outcome.log_path}", highlight=False)
    raise typer.Exit(0 if report.identical else EXIT_FAILED)


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
    path = or_exit(lambda: make_bundle(folder, output))
    out.print(f"wrote {path}; replay it with `society replay {path} --rerun`", highlight=False)
