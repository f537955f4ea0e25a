"""The web view's application without a browser: a bundle and a log file open read-only,
the JSON view of a run, prompts, and clear errors."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from society.replay.bundle import make_bundle
from society.web.routes import make_app
from society.web.state import WebApp

from .replay.logs import RUN, write


def test_a_bundle_opens_read_only_with_its_tasks_and_spend(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / RUN
    run_dir.mkdir(parents=True)
    write(run_dir / "log.jsonl")
    (run_dir / "prompts").mkdir()
    (run_dir / "prompts" / "abc123.json").write_text('{"messages": []}')
    bundle = make_bundle(run_dir, tmp_path / "run.tar.gz")
    web = WebApp(tmp_path / "elsewhere", extra=[bundle])
    with TestClient(make_app(web), base_url="http://127.0.0.1") as client:
        runs = client.get("/api/runs").json()["runs"]
        assert [(r["id"], r["status"]) for r in runs] == [(RUN, "opened")]
        page = client.get(f"/api/runs/{RUN}").json()
        assert page["writable"] is False and page["status"] == "succeeded"
        assert {t["id"]: t["state"] for t in page["tasks"]} == {"a": "done", "b": "done"}
        assert {b["name"] for b in page["budgets"]} >= {"calls", "tokens", "wall_s"}
        assert 'data-task="a"' in page["graph"]
        assert client.get(f"/api/runs/{RUN}/prompts/abc123").json() == {"messages": []}
        assert client.get(f"/api/runs/{RUN}/prompts/nope").status_code == 404
        assert client.get(f"/login?key={web.access.owner_key}").status_code == 200
        own = {"Origin": "http://127.0.0.1"}
        acted = client.post(f"/api/runs/{RUN}/act", json={"action": "abort"}, headers=own)
        assert acted.status_code == 403
        assert acted.json()["error"] == "an opened log is read-only"
        missing = client.get("/api/runs/no-such-run")
        assert missing.status_code == 404
        assert "no-such-run" in missing.json()["error"]
        assert "society · run" in client.get(f"/runs/{RUN}").text


def test_reading_beyond_loopback_needs_a_session_and_a_used_link_is_refused(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "runs" / RUN
    run_dir.mkdir(parents=True)
    write(run_dir / "log.jsonl")
    web = WebApp(tmp_path / "runs", "alice", open_reading=False)
    key = web.access.owner_key
    with TestClient(make_app(web), base_url="http://127.0.0.1") as client:
        assert client.get("/api/runs").status_code == 401
        assert client.get(f"/api/runs/{RUN}").status_code == 401
        assert client.get("http://attacker.example/api/me").status_code == 400  # foreign Host
        assert client.get(f"/login?key={key}x").status_code == 403
        assert client.get(f"/login?key={key}").status_code == 200  # redirected home, signed in
        assert client.get("/api/me").json()["name"] == "alice"
        assert [r["id"] for r in client.get("/api/runs").json()["runs"]] == [RUN]
    with TestClient(make_app(web), base_url="http://127.0.0.1") as other:
        assert other.get(f"/login?key={key}").status_code == 403  # once only
        assert other.get("/api/me").json()["name"] is None
