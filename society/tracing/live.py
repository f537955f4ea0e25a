"""Live export: a process's spans, sent over OTLP as its messages end them.

Every process folds the messages it sends and receives (a `bus.taps` tap) into spans and
exports the ones a message *it sent* ended, so each span leaves once, from the process
that saw it end: a worker its task attempts, model and tool calls and sandbox runs; the
runner the run, the plans and everything its own roles did — and the questions people
answered (their attach sessions do not export).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from bus import Envelope, taps
from society.tracing.otlp import configured_endpoint, exporter, readable, resource
from society.tracing.spans import SpanBuilder, SpanRecord

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

__all__ = ["LiveTracer", "from_environment"]

log = structlog.get_logger("tracing")


class LiveTracer:
    """Exports this process's spans of every run it takes part in (a context manager)."""

    def __init__(self, process: str, *, runner: bool, url: str | None = None) -> None:
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.process = process
        self.runner = runner
        """The runner's process exports what people's answers end, and what is left open."""
        self._processor: BatchSpanProcessor = BatchSpanProcessor(exporter(url))
        self._builders: dict[str, SpanBuilder] = {}
        self._resources: dict[str, Resource] = {}
        self._seen: set[str] = set()
        self.exported = 0

    def __enter__(self) -> LiveTracer:
        taps.add(self.tap)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tap(self, env: Envelope, sent: bool) -> None:
        """Fold in one message this process sent or received; export the spans it ends."""
        if env.id in self._seen:
            return
        self._seen.add(env.id)
        builder = self._builders.setdefault(env.run_id, SpanBuilder())
        try:
            spans = builder.take(env)
        except Exception:  # tracing must never break a run
            log.exception("could not trace a message", id=env.id)
            return
        if spans and (sent or (self.runner and env.role == "human")):
            self._export(env.run_id, spans)

    def _export(self, run_id: str, spans: list[SpanRecord]) -> None:
        where = self._resources.get(run_id)
        if where is None:
            where = self._resources[run_id] = resource(run_id, self.process)
        for span in readable(spans, where):
            self._processor.on_end(span)
        self.exported += len(spans)

    def finish(self, run_id: str) -> None:
        """The run is over here: export its spans still open (the runner's, at its end)."""
        builder = self._builders.pop(run_id, None)
        if builder is not None and self.runner:
            self._export(run_id, builder.finish())

    def close(self) -> None:
        """Stop tapping, end what is open, and send everything still queued."""
        taps.remove(self.tap)
        for run_id in list(self._builders):
            self.finish(run_id)
        self._processor.shutdown()  # type: ignore[no-untyped-call]


def from_environment(process: str, *, runner: bool) -> LiveTracer | None:
    """A live tracer when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or the traces one) is set."""
    if configured_endpoint() is None:
        return None
    return LiveTracer(process, runner=runner)
