"""A stranger's bundle is data until trusted: forking it on its own scenario starts no
command, reads no environment variable and contacts no host unless the person says so;
with their own scenario it proceeds; a re-run stays offline and identical."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MCP_TOOLS = ROOT / "tests" / "mcp_tools.py"

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(400)]

WRAPPER = (
    "import os, pathlib, runpy; pathlib.Path(os.environ['MARKER_FILE']).write_text('ran'); "
    f"runpy.run_path({str(MCP_TOOLS)!r}, run_name='__main__')"
)


def sent(base_url: str) -> str:
    """The sender's scenario: their model server, keyed from the environment, and an MCP
    tool whose command leaves a marker file where it runs."""
    info = "{vision: false, function_calling: true, json_output: true, family: unknown, structured_output: true}"
    return f"""
name: sent
goal: {{text: Say hello.}}
models:
  default:
    provider: openai
    config: {{model: m, base_url: "{base_url}", api_key: "${{SOME_SECRET}}", model_info: {info}}}
tools:
  marker: {{command: {sys.executable}, args: [-c, {json.dumps(WRAPPER)}], env: {{MARKER_FILE: "${{MARKER_FILE}}"}}}}
roles:
  researcher: {{tools: [marker.echo], require_sources: false}}
budgets: {{wall_s: 120, calls: 10}}
"""


PLAN = {
    "success_criteria": ["hello is said"],
    "tasks": [
        {"id": "hello", "role": "researcher", "description": "Say hello.", "outputs": ["answer"]}
    ],
}


OWN = """
name: own
goal: {text: Say hello.}
models: {default: {provider: scripted}}
budgets: {wall_s: 120, calls: 10}
script:
  coder:  # the live path: one program for the goal, checked by the verifier and a second
    - instructions: without seeing it
      answer: {kind: text}
    - match: independent check of a teammate
      answer: "```python\\nwords = ['hello']\\nprint(' '.join(words))\\n```"
    - answer: "```python\\ngreeting = 'hel' + 'lo'\\nprint(greeting)\\n```"
"""


def society(
    *args: str, secret: str, cwd: Path, marker: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOME_SECRET": secret, "COLUMNS": "200"}
    env["MARKER_FILE"] = str(marker or cwd / "marker")
    return subprocess.run(
        [sys.executable, "-m", "society.cli", *args],
        capture_output=True, text=True, timeout=300, env=env, cwd=cwd, check=False,
    )  # fmt: skip


@pytest.fixture
def listener() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A local HTTP server that records every request it gets (and refuses it)."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            seen.append({"path": self.path, "auth": self.headers.get("Authorization", "")})
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.endswith("/chat/completions"):
                self._send(200, {"object": "list", "data": []})
                return
            system = str(body["messages"][0]["content"])
            answer = PLAN if "You are the planner" in system else {"outputs": {"answer": "hello"}}
            self._send(200, {
                "id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": json.dumps(answer)}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            })  # fmt: skip

        def _send(self, status: int, doc: object) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _record

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()


def goal_number(run_dir: Path) -> int:
    lines = (run_dir / "log.jsonl").read_text().splitlines()
    return next(
        n for n, line in enumerate(lines, 1)
        if ((json.loads(line).get("envelope") or {}).get("payload") or {}).get("type") == "goal"
    )  # fmt: skip


def test_a_fork_of_a_strangers_bundle_runs_nothing_the_receiver_did_not_choose(
    tmp_path: Path, listener: tuple[str, list[dict[str, str]]]
) -> None:
    url, seen = listener
    sender = tmp_path / "sender"
    sender.mkdir()
    (sender / "sent.yaml").write_text(sent(url))
    made = society("run", "sent.yaml", "--runs-dir", "runs", secret="senders-own", cwd=sender)
    # unverified (exit 1): the sender's research cites nothing; its status is not the point
    assert made.returncode == 1 and "unverified" in made.stderr, made.stdout + made.stderr
    assert (sender / "marker").read_text() == "ran"  # on the sender's machine, by their choice
    assert any(s["auth"] == "Bearer senders-own" for s in seen)
    seen.clear()
    (run_dir,) = (sender / "runs").glob("sent-*")
    marker = tmp_path / "receiver" / "marker"
    packed = society(
        "bundle", str(run_dir), "-o", str(tmp_path / "their.tar.gz"), secret="", cwd=sender
    )
    assert packed.returncode == 0, packed.stderr
    receiver = tmp_path / "receiver"
    receiver.mkdir()
    assert not marker.exists()
    bundle = str(tmp_path / "their.tar.gz")
    at = str(goal_number(run_dir))
    key = "receivers-key-0123456789"

    refused = society("replay", bundle, "--fork-at", at, secret=key, cwd=receiver)
    said = refused.stdout + refused.stderr
    assert refused.returncode == 2, said
    assert "start the command:" in said and "(tools.marker.command)" in said
    assert "read the environment variable SOME_SECRET" in said
    assert f"contact {url} (models.default)" in said
    assert "--scenario" in said and "--trust-bundle" in said
    assert key not in said and not marker.exists() and seen == []
    assert not (receiver / "runs").exists()  # nothing started, nothing written

    early = society("replay", bundle, "--fork-at", "2", secret=key, cwd=receiver)
    assert early.returncode == 2 and f"use --fork-at {at}.." in early.stderr, early.stderr

    again = society("replay", bundle, "--rerun", "--no-pace", secret=key, cwd=receiver)
    assert again.returncode == 0 and "identical" in again.stdout, again.stdout[:3000]
    assert not marker.exists() and seen == []

    (receiver / "own.yaml").write_text(OWN)
    mine = society(
        "replay", bundle, "--fork-at", at, "--scenario", "own.yaml", secret=key, cwd=receiver
    )
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert "fork of" in mine.stdout and not marker.exists() and seen == []

    trusted = society("replay", bundle, "--fork-at", at, "--trust-bundle", secret=key, cwd=receiver)
    assert trusted.returncode in (0, 1), trusted.stdout + trusted.stderr
    assert marker.read_text() == "ran"  # what the list said: the command ran here
    assert any(s["auth"] == f"Bearer {key}" for s in seen)  # ... and the key went there
    for folder in (receiver / "runs").iterdir():
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in (".jsonl", ".json", ".txt"):
                assert key not in path.read_text(errors="replace"), path
