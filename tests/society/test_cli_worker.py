"""The CLI of the distributed society: worker, run --workers, nats-config."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from society.cli.main import app
from society.logs import configure_logging

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(autouse=True)
def _logs_back_to_stderr() -> Iterator[None]:
    """CliRunner points the logs at its own stream, closed after each test: point them back."""
    yield
    configure_logging("console", "warning")


def test_the_manager_is_not_a_worker_role() -> None:
    result = runner.invoke(app, ["worker", "--role", "manager", "--nats", "nats://h:1"])
    assert result.exit_code == 2
    assert "--role must be one of planner, researcher, critic, reflector, coder" in result.output


def test_a_worker_without_a_server_says_so() -> None:
    result = runner.invoke(
        app, ["worker", "--role", "planner", "--nats", "nats://u:pw@127.0.0.1:1"]
    )
    assert result.exit_code == 3
    assert "cannot reach NATS at nats://127.0.0.1:1" in result.output
    assert "pw" not in result.output


def test_run_refuses_an_unknown_workers_mode() -> None:
    scenario = str(ROOT / "scenarios" / "quickstart.yaml")
    result = runner.invoke(app, ["run", scenario, "--workers", "elsewhere"])
    assert result.exit_code == 2
    assert "--workers must be inprocess or external" in result.output


def test_nats_config_needs_every_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIETY_NATS_PASSWORD_CODER", "c")
    result = runner.invoke(app, ["nats-config", "--roles", "coder,planner"])
    assert result.exit_code == 2
    assert "SOCIETY_NATS_PASSWORD_PLANNER" in result.output


def test_nats_config_writes_users_and_cluster_routes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SOCIETY_NATS_PASSWORD_CODER", "c0der")
    monkeypatch.setenv("SOCIETY_NATS_PASSWORD_MANAGER", "m4nager")
    out = tmp_path / "nats" / "society.conf"
    args = ["nats-config", "--roles", "manager,coder", "--routes", "nats-1:6222,nats-2:6222"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    users = {u["user"]: u for u in doc["accounts"]["SOCIETY"]["users"]}
    assert users["coder"]["password"] == "c0der"
    assert "society.*.result" in users["coder"]["permissions"]["publish"]["allow"]
    assert doc["cluster"]["routes"] == ["nats-route://nats-1:6222", "nats-route://nats-2:6222"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # it holds passwords
