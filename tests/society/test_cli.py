"""The CLI's thin edge: validate, schema, version (CliRunner and a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from society.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_validate_ok() -> None:
    result = runner.invoke(app, ["validate", str(ROOT / "scenarios" / "quickstart.yaml")])
    assert result.exit_code == 0, result.output
    assert "ok" in result.output


def test_validate_broken_copy_exits_2_with_location(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    bad = tmp_path / "quickstart.yaml"
    bad.write_text(text.replace("  wall_s:", "  wal_s:"))
    proc = subprocess.run(
        [sys.executable, "-m", "society.cli", "validate", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    line = next(i for i, ln in enumerate(bad.read_text().splitlines(), 1) if "wal_s" in ln)
    assert f"{bad}:{line}: budgets.wal_s: unknown key" in proc.stderr.replace("\n", "")
    assert "Traceback" not in proc.stderr


def test_validate_missing_file_exits_2() -> None:
    result = runner.invoke(app, ["validate", "does/not/exist.yaml"])
    assert result.exit_code == 2


def test_schema_is_json_schema_of_every_payload() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["title"] == "Envelope"
    text = json.dumps(doc)
    for kind in (
        "goal",
        "plan",
        "task",
        "result",
        "critique",
        "usage",
        "control",
        "final",
        "dead_letter",
    ):
        assert f'"const": "{kind}"' in text
    scenario = json.loads(runner.invoke(app, ["schema", "scenario"]).stdout)
    assert "goal" in scenario["properties"]


def test_the_scenario_schema_describes_fields_with_their_docstrings() -> None:
    scenario = json.loads(runner.invoke(app, ["schema", "scenario"]).stdout)
    delivery = scenario["$defs"]["DeliverySettings"]["properties"]
    assert delivery["ack_wait_s"]["description"] == (
        "Seconds without a heartbeat after which a task goes to another worker."
    )
    described = [
        field
        for definition in scenario["$defs"].values()
        for field, prop in definition.get("properties", {}).items()
        if "description" in prop
    ]
    assert len(described) > 50


def test_version_and_help() -> None:
    assert "society" in runner.invoke(app, ["version"]).stdout
    help_text = runner.invoke(app, ["--help"]).stdout
    for command in ("run", "attach", "validate", "schema", "version"):
        assert command in help_text


@pytest.mark.nats
@pytest.mark.timeout(240)
def test_a_run_whose_sandbox_cannot_start_stops_with_exit_3_and_keeps_its_log(
    tmp_path: Path,
) -> None:
    # The sandbox starts while the run gets going (issue 18); when it cannot start, the run
    # is aborted with the reason, its log kept, and the command fails as before: exit 3.
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock"}
    cmd = [sys.executable, "-m", "society.cli", "run", str(ROOT / "scenarios" / "quickstart.yaml")]
    cmd += ["--runs-dir", str(tmp_path / "runs"), "--memory-dir", str(tmp_path / "memory")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=200)
    assert proc.returncode == 3, proc.stderr
    assert "cannot reach the Docker daemon" in proc.stderr.replace("\n", " ")
    [summary_file] = (tmp_path / "runs").glob("*/summary.json")
    summary = json.loads(summary_file.read_text())
    assert summary["status"] == "aborted"
    assert "the sandbox could not start" in summary["reason"]
    assert (summary_file.parent / "log.jsonl").stat().st_size > 0
