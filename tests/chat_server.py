"""A small local HTTP server that speaks the OpenAI chat-completions API, for tests of
the OpenAI-compatible path with the real openai SDK (no mock objects).

``respond(request_json) -> str`` decides each answer; ``rate_limit_first`` answers that
many requests with HTTP 429 and a Retry-After header first; ``faults`` are played one per
request before answering normally: ``500``, ``garbage`` (a 200 that is not JSON),
``hang`` (never answers) and ``trickle`` (a body that never ends, a byte at a time);
``serve_s`` makes it a server with one slot, like llama.cpp here: it answers one request at
a time, each after that many seconds, and computes a request its client gave up on too.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], str]


class ChatServer:
    """Records requests; answers with ``respond``."""

    def __init__(
        self,
        respond: Responder,
        *,
        rate_limit_first: int = 0,
        retry_after: float = 0.2,
        faults: list[str] | None = None,
        serve_s: float | None = None,
    ) -> None:
        self.respond = respond
        self.faults = list(faults or [])
        self.played: list[str] = []
        self.closing = threading.Event()
        self.rate_limit_left = rate_limit_first
        self.retry_after = retry_after
        self.requests: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        """When each chat completion request arrived (monotonic seconds)."""
        self.refused = 0
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        self.serve_s = serve_s
        self.served = 0
        """Requests answered after ``serve_s`` of work (abandoned ones included)."""
        self._slot = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                if self.path.endswith("/chat/completions"):
                    with server._lock:
                        server.arrivals.append(time.monotonic())
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.auth_headers.append(self.headers.get("authorization", ""))
                with server._lock:
                    limited = server.rate_limit_left > 0
                    if limited:
                        server.rate_limit_left -= 1
                        server.refused += 1
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with server._lock:
                    fault = server.faults.pop(0) if server.faults and not limited else None
                    if fault:
                        server.played.append(fault)
                if fault is not None:
                    self._fault(fault)
                    return
                if limited:
                    self._send(
                        429,
                        {"error": {"message": "rate limited", "type": "rate_limit_exceeded"}},
                        {"retry-after": str(server.retry_after)},
                    )
                    return
                server.requests.append(body)
                if server.serve_s is not None:
                    with server._slot:
                        server.closing.wait(server.serve_s)
                        server.served += 1
                text = server.respond(body)
                prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
                usage = {
                    "prompt_tokens": prompt_chars // 4 + 1,
                    "completion_tokens": len(text) // 4 + 1,
                    "total_tokens": prompt_chars // 4 + len(text) // 4 + 2,
                }
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "local"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": usage,
                    },
                )

            def _fault(self, fault: str) -> None:
                if fault == "500":
                    self._send(
                        500, {"error": {"message": "internal error", "type": "server_error"}}
                    )
                elif fault == "garbage":
                    body = b"<html><body>502 Bad Gateway (from a proxy)</body></html>"
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif fault == "hang":
                    server.closing.wait(120)
                elif fault == "trickle":
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", "100000000")
                    self.end_headers()
                    self.wfile.write(b'{"id": "x", "choices": [{"message": {"content": "')
                    while not server.closing.wait(0.05):
                        try:
                            self.wfile.write(b"la ")
                            self.wfile.flush()
                        except OSError:
                            return
                else:
                    raise ValueError(fault)

            def _send(
                self, code: int, doc: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def busiest(self, window_s: float = 60.0) -> int:
        """The most requests that arrived within any ``window_s`` seconds."""
        times = sorted(self.arrivals)
        most, first = 0, 0
        for last, t in enumerate(times):
            while t - times[first] >= window_s:
                first += 1
            most = max(most, last - first + 1)
        return most


@contextmanager
def chat_server(respond: Responder, **kw: Any) -> Iterator[ChatServer]:
    """Run a `ChatServer` in a thread for the duration of the block."""
    server = ChatServer(respond, **kw)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.closing.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(timeout=5)
