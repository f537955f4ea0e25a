"""`society replay` and `society bundle` as a user runs them: real subprocesses, damaged
logs read up to the damage with a warning naming the line, duplicated, reordered and stray
lines counted and kept, step, JSON, follow, re-run."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from society.run.runner import RunOptions, run_scenario
from society.scenario import load_scenario

from ..conftest import ROOT, RunYaml
from .logs import envelopes, write

pytestmark = pytest.mark.timeout(120)

SOCIETY = [sys.executable, "-m", "society.cli"]


def society(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SOCIETY, *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=90,
        cwd=cwd,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def test_timeline_shows_every_message(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    proc = society("replay", str(log))
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert len(rows) == 12 and rows[0].startswith("#1 ") and "goal" in rows[0]
    assert "← #2" in rows[2]  # the plan answers the plan request
    assert proc.stderr == ""


def test_a_cut_last_line_is_read_up_to_the_damage(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    lines = _lines(log)
    log.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    proc = society("replay", str(log))
    assert proc.returncode == 0
    assert "line 12: the line is cut short (truncated log)" in proc.stderr
    assert len(proc.stdout.splitlines()) == 11
    assert "Traceback" not in proc.stderr


def test_a_line_that_is_not_json_stops_the_read_there(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    lines = _lines(log)
    log.write_text("".join([*lines[:4], "this is not json\n", *lines[4:]]))
    proc = society("replay", str(log))
    assert proc.returncode == 0
    assert "line 5: the line is not JSON" in proc.stderr
    assert "damaged from line 5" in proc.stderr
    assert len(proc.stdout.splitlines()) == 4
    assert "Traceback" not in proc.stderr


def test_an_unknown_message_type_is_kept_as_raw_text(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    lines = _lines(log)
    data = json.loads(lines[3])
    data["envelope"]["payload"]["type"] = "mystery"
    lines[3] = json.dumps(data) + "\n"
    log.write_text("".join(lines))
    proc = society("replay", str(log))
    assert proc.returncode == 0
    assert "line 4: not a valid message, kept as raw text" in proc.stderr
    rows = proc.stdout.splitlines()
    assert len(rows) == 12 and "not a valid message" in rows[3]
    assert "Traceback" not in proc.stderr


def warnings(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The warning lines of a command that succeeded without a traceback."""
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("warning:")]


def test_a_duplicated_line_is_counted_and_the_rest_still_shown(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    lines = _lines(log)
    log.write_text("".join([*lines[:5], lines[3], *lines[5:]]))
    proc = society("replay", str(log))
    (warning,) = warnings(proc)
    assert warning == (
        f"warning: {log}: 1 line duplicated (the same seq or message id as an earlier "
        "line): line 6; kept in place"
    )
    rows = proc.stdout.splitlines()
    assert len(rows) == 13 and "final" in rows[-1]


def test_two_swapped_lines_are_counted_and_the_rest_still_shown(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    lines = _lines(log)
    lines[5], lines[6] = lines[6], lines[5]
    log.write_text("".join(lines))
    proc = society("replay", str(log))
    (warning,) = warnings(proc)
    assert "1 line out of order (a lower seq than the line before): line 7;" in warning
    rows = proc.stdout.splitlines()
    assert len(rows) == 12 and "exec_request" in rows[5] and "usage" in rows[6]


def test_lines_of_another_run_are_counted_and_the_rest_still_shown(tmp_path: Path) -> None:
    ours, theirs = envelopes(), envelopes(run="other-run")
    log = write(tmp_path / "log.jsonl", [*ours[:3], theirs[3], *ours[3:9], theirs[9], *ours[9:]])
    proc = society("replay", str(log))
    (warning,) = warnings(proc)
    assert warning.endswith(
        "2 lines from another run (the log's run is synthetic-run): lines 4, 11; kept in place"
    )
    rows = proc.stdout.splitlines()
    assert len(rows) == 14 and "goal" in rows[0] and "final" in rows[-1]


def test_json_output_with_filters(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    proc = society("replay", str(log), "--json", "--role", "coder", "--type", "exec_result")
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert row["number"] == 8 and row["parent_number"] == 7
    assert row["envelope"]["payload"]["exit_code"] == 0


def test_step_walks_one_message_at_a_time(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    proc = society("replay", str(log), "--step", "--task", "a", stdin="\n\nq\n")
    assert proc.returncode == 0, proc.stderr
    assert "1/5" in proc.stdout and "3/5" in proc.stdout and "4/5" not in proc.stdout
    assert '"exec_request"' in proc.stdout  # the full message is shown at each step


def test_tree_of_a_task(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    proc = society("replay", str(log), "--tree", "--task", "a")
    assert proc.returncode == 0, proc.stderr
    assert "causal tree of task a" in proc.stdout and "exec_result" in proc.stdout


def test_unknown_run_and_missing_server_are_clear_errors(tmp_path: Path) -> None:
    proc = society("replay", "no-such-run", "--runs-dir", str(tmp_path))
    assert proc.returncode == 2
    assert "no-such-run: no log file" in proc.stderr and "Traceback" not in proc.stderr
    proc = society("replay", "no-such-run", "--nats", "nats://127.0.0.1:1")
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr


@pytest.mark.nats
async def test_follow_prints_a_live_run_until_its_final_message(
    nats_url: str, tmp_path: Path
) -> None:
    scenario_path = ROOT / "scenarios" / "failures" / "drift.yaml"
    run_id = "follow-test-" + tmp_path.name[-8:].replace("_", "-")
    follower = await asyncio.create_subprocess_exec(
        *SOCIETY,
        "replay",
        run_id,
        "--follow",
        "--nats",
        nats_url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    options = RunOptions(nats_url=nats_url, runs_dir=tmp_path, run_id=run_id, live=False)
    outcome = await run_scenario(load_scenario(scenario_path), options, Console(stderr=True))
    out, err = await asyncio.wait_for(follower.communicate(), 60)
    assert follower.returncode == 0, err.decode()
    text = out.decode()
    assert outcome.final is not None and outcome.final.status == "succeeded"
    assert "goal" in text.splitlines()[0] or "presence" in text.splitlines()[0]
    assert "final" in text.splitlines()[-1] and "succeeded" in text.splitlines()[-1]


@pytest.mark.nats
@pytest.mark.docker
async def test_bundle_then_rerun_from_the_command_line(
    run_yaml: RunYaml, nats_url: str, tmp_path: Path
) -> None:
    original = await run_yaml(ROOT / "scenarios" / "code_retry.yaml")
    made = society("bundle", str(original.run_dir), "-o", str(tmp_path / "b.tar.gz"))
    assert made.returncode == 0, made.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = await asyncio.to_thread(
        society,
        "replay",
        str(tmp_path / "b.tar.gz"),
        "--rerun",
        "--nats",
        nats_url,
        "--no-pace",
        cwd=elsewhere,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "identical" in proc.stdout
