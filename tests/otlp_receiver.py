"""An OTLP/HTTP trace receiver for the tests: it decodes what exporters send with the
official OpenTelemetry protobuf definitions (``opentelemetry-proto``) and keeps the spans."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def _value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


@dataclass
class Span:
    """One received span, decoded."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status_code: int
    events: list[str]


@dataclass
class Receiver:
    """The spans received so far (thread-safe), and a way to wait for more."""

    url: str = ""
    spans: list[Span] = field(default_factory=list)
    requests: int = 0
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def take(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        got = []
        for rs in request.resource_spans:
            resource = {a.key: _value(a.value) for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for s in ss.spans:
                    got.append(
                        Span(
                            s.trace_id.hex(),
                            s.span_id.hex(),
                            s.parent_span_id.hex(),
                            s.name,
                            s.kind,
                            s.start_time_unix_nano,
                            s.end_time_unix_nano,
                            {a.key: _value(a.value) for a in s.attributes},
                            resource,
                            s.status.code,
                            [e.name for e in s.events],
                        )
                    )
        with self._changed:
            self.requests += 1
            self.spans.extend(got)
            self._changed.notify_all()

    def wait_for(self, check: Any, timeout: float = 30.0) -> list[Span]:
        """Wait (bounded) until ``check(spans)`` holds; returns the spans."""
        with self._changed:
            if not self._changed.wait_for(lambda: check(list(self.spans)), timeout):
                raise TimeoutError(f"spans never matched; got {len(self.spans)}")
            return list(self.spans)


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    """A receiver on a free local port; ``url`` is the base to give exporters."""
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            receiver.take(body)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
