"""Sending spans over OTLP with the official OpenTelemetry SDK and exporter.

The standard environment decides, as for any OpenTelemetry program:
``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``),
``OTEL_EXPORTER_OTLP_PROTOCOL`` (``http/protobuf``, the default; ``grpc`` when
``opentelemetry-exporter-otlp-proto-grpc`` is installed), ``OTEL_EXPORTER_OTLP_HEADERS``,
``OTEL_SDK_DISABLED`` and ``OTEL_TRACES_EXPORTER=none``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from society.errors import SocietyError
from society.tracing.spans import SpanRecord

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter

__all__ = ["TracingError", "configured_endpoint", "exporter", "readable", "resource"]

PROTOCOLS = ("http/protobuf", "grpc")


class TracingError(SocietyError):
    """Traces cannot be sent as configured."""


def configured_endpoint() -> str | None:
    """The OTLP endpoint the environment names, unless tracing is switched off there."""
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return None
    if os.environ.get("OTEL_TRACES_EXPORTER", "otlp").lower() == "none":
        return None
    return (
        os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or None
    )


def _traces_url(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/v1/traces") else f"{base}/v1/traces"


def exporter(url: str | None = None, protocol: str | None = None) -> SpanExporter:
    """An OTLP span exporter: to ``url`` (an endpoint base, as in the environment
    variable), else to where the environment says."""
    protocol = (
        protocol
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    )
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        if url is None and os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
            return OTLPSpanExporter()
        base = url or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        if not base:
            msg = "no OTLP endpoint: give --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT"
            raise TracingError(msg)
        return OTLPSpanExporter(endpoint=_traces_url(base))
    if protocol == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
                OTLPSpanExporter as GrpcExporter,
            )
        except ImportError:
            msg = (
                "OTLP over grpc needs `pip install opentelemetry-exporter-otlp-proto-grpc`; "
                "or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (port 4318)"
            )
            raise TracingError(msg) from None
        return GrpcExporter(endpoint=url) if url else GrpcExporter()  # type: ignore[no-any-return]
    msg = f"OTLP protocol {protocol!r} is not supported: use one of {', '.join(PROTOCOLS)}"
    raise TracingError(msg)


def resource(run_id: str, process: str) -> Resource:
    """Who sends the spans: the ``society`` service, this process, the run."""
    from opentelemetry.sdk.resources import Resource

    return Resource.create(
        {
            "service.name": "society",
            "service.instance.id": f"{process}-{os.getpid()}",
            "society.process": process,
            "society.run_id": run_id,
        }
    )


def readable(spans: Iterable[SpanRecord], where: Resource) -> list[ReadableSpan]:
    """The SDK's finished spans for ``spans`` (their ids kept as derived)."""
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    scope = InstrumentationScope("society")
    sampled = TraceFlags(TraceFlags.SAMPLED)
    out = []
    for s in spans:
        context = SpanContext(s.trace_id, s.span_id, is_remote=False, trace_flags=sampled)
        parent = (
            SpanContext(s.trace_id, s.parent_id, is_remote=True, trace_flags=sampled)
            if s.parent_id
            else None
        )
        status = Status(StatusCode.ERROR, s.error[:500]) if s.error else Status(StatusCode.OK)
        out.append(
            ReadableSpan(
                name=s.name,
                context=context,
                parent=parent,
                resource=where,
                attributes=s.attributes,
                events=[Event(name, dict(attrs), ts) for name, ts, attrs in s.events],
                kind=SpanKind.CLIENT if s.kind == "client" else SpanKind.INTERNAL,
                status=status,
                start_time=s.start_ns,
                end_time=s.end_ns,
                instrumentation_scope=scope,
            )
        )
    return out
