"""``society trace`` and ``society web``: see a run as a trace, or in the browser."""

# No `from __future__ import annotations`: typer reads every command's annotations at each
# start, and evaluating them from strings took 30-40 ms of every `society` command.
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from society.cli.support import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    err,
    escape,
    fail,
    guarded,
    or_exit,
    out,
)
from society.view.terminal_text import safe_line

__all__ = ["trace", "web"]

_BATCH = 512


def trace(
    log: Annotated[
        str, typer.Argument(help="runs/<id>/log.jsonl, a run folder, a bundle, or a run id")
    ],
    otlp: Annotated[
        str | None,
        typer.Option(
            "--otlp",
            help="The OTLP endpoint, e.g. http://localhost:4318 (default: "
            "$OTEL_EXPORTER_OTLP_ENDPOINT)",
        ),
    ] = None,
    protocol: Annotated[
        str | None,
        typer.Option(help="http/protobuf or grpc (default: $OTEL_EXPORTER_OTLP_PROTOCOL)"),
    ] = None,
    nats: Annotated[
        str | None, typer.Option("--nats", help="Read the run (by id) from this NATS server")
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
) -> None:
    """Send a run's spans (from its log, any age) over OTLP, to open it in Jaeger or
    Phoenix: the same spans, with the same ids, a live run exports."""
    from society.replay import source as sources
    from society.tracing.otlp import TracingError, exporter, readable, resource
    from society.tracing.spans import SpanBuilder

    where = or_exit(lambda: sources.locate(log, runs_dir=runs_dir, nats_url=nats))
    with tempfile.TemporaryDirectory(prefix="society-trace-") as scratch:
        if isinstance(where, sources.LiveRun):
            src = guarded(lambda: sources.read_live(where, runs_dir))
        else:
            src = or_exit(lambda: sources.read_local(where, scratch=Path(scratch)))
    run_id = src.run_id
    if run_id is None:
        text = f"{log}: no valid message in the log"
        raise fail(text, EXIT_BAD_INPUT)
    builder = SpanBuilder()
    spans = []
    for record in src.records:
        if record.envelope is not None and record.envelope.run_id == run_id:
            spans += builder.take(record.envelope)
    spans += builder.finish()
    try:
        sink = exporter(otlp, protocol)
    except TracingError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    from opentelemetry.sdk.trace.export import SpanExportResult

    where_to = otlp or "the OTLP endpoint"
    sent = readable(spans, resource(run_id, "trace"))
    try:
        for i in range(0, len(sent), _BATCH):
            if sink.export(sent[i : i + _BATCH]) is not SpanExportResult.SUCCESS:
                text = f"the OTLP receiver at {where_to} did not take the spans (see above)"
                raise fail(text, EXIT_FAILED)
    finally:
        sink.shutdown()
    out.print(
        f"exported {len(sent)} spans of run {escape(safe_line(run_id))} to "
        f"{escape(safe_line(where_to))} · trace id {builder.trace_id:032x}",
        highlight=False,
    )
    err.print(f"[dim]from {escape(safe_line(src.where))}[/]", highlight=False)


def web(
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port)")] = 8765,
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    name: Annotated[
        str | None, typer.Option(help="Your name as the human role (default: login name)")
    ] = None,
    open_path: Annotated[
        list[Path] | None,
        typer.Option("--open", help="Also show this log file or bundle (read-only)"),
    ] = None,
) -> None:
    """A local web view of the runs folder and of live runs: the task graph, the
    conversation, prompts, spend against budgets, and questions you can answer."""
    from society.web.server import serve

    guarded(lambda: serve(runs_dir, host=host, port=port, person=name, extra=open_path or []))
