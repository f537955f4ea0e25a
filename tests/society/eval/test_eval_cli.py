"""`society eval` as a user runs it (a real CLI process, real nats-server, real sandbox):
scripted models answer, the graders judge, the results JSON and the tables say so."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(600)]

SOCIETY = Path(sys.executable).parent / "society"
SUITES = Path(__file__).parent / "suites"


def society(*args: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160"}
    return subprocess.run(
        [str(SOCIETY), *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


@pytest.fixture(scope="module")
def scripted_eval(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], Path]:
    where = tmp_path_factory.mktemp("eval")
    out = where / "results.json"
    done = society(
        "eval",
        str(SUITES / "scripted.yaml"),
        "--baseline",
        "direct,program",
        "--runs-dir",
        str(where / "runs"),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done, json.loads(out.read_text()), where


def record(results: dict[str, Any], case: str, arm: str) -> dict[str, Any]:
    return next(r for r in results["records"] if r["case"] == case and r["arm"] == arm)


def test_a_right_answer_passes_and_a_wrong_one_is_a_false_success(
    scripted_eval: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    done, results, _ = scripted_eval
    right, wrong = record(results, "right", "society"), record(results, "wrong", "society")
    assert right["passed"] and right["status"] == "succeeded"
    assert [g["kind"] for g in right["grades"]] == ["number", "python"]
    assert not wrong["passed"] and wrong["status"] == "succeeded"
    assert "want 48" in wrong["grades"][0]["detail"] and "46" in wrong["grades"][0]["detail"]
    society_totals = next(t for t in results["totals"] if t["arm"] == "society")
    assert society_totals["false_successes"] == 1
    assert society_totals["passed"] == 1 and society_totals["cases"] == 3
    assert "Traceback" not in done.stdout + done.stderr
    assert "false successes" in done.stdout and "tokens per solved" in done.stdout


def test_baselines_answer_on_the_same_model_and_are_graded_alike(
    scripted_eval: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    _, results, _ = scripted_eval
    assert results["arms"] == ["society", "direct", "program"]
    assert record(results, "right", "program")["passed"]
    assert record(results, "right", "program")["answer"] == "42"
    assert record(results, "wrong", "program")["passed"]  # its program computed 48
    assert not record(results, "wrong", "direct")["passed"]  # it said 46
    broken = record(results, "spent", "program")
    assert not broken["passed"] and broken["status"] == "failed"
    assert "SyntaxError" in broken["reason"]
    for r in results["records"]:
        if r["arm"] != "society":
            assert r["calls"] == 1 and r["tokens_in"] > 0
            calls = Path(r["folder"]) / "calls.jsonl"
            logged = [json.loads(line) for line in calls.read_text().splitlines()]
            assert len(logged) == 1 and logged[0]["request"]["messages"]


def test_a_run_that_exhausts_its_budget_is_recorded_as_such_and_the_eval_goes_on(
    scripted_eval: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    _, results, _ = scripted_eval
    spent = record(results, "spent", "society")
    assert spent["status"] == "budget_exhausted" and not spent["passed"]
    assert [r["case"] for r in results["records"]] == [
        c for c in ("right", "wrong", "spent") for _ in range(3)
    ]
    assert results["finished"]


def test_each_society_case_is_a_run_folder_that_replays_identically(
    scripted_eval: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path],
) -> None:
    _, results, _ = scripted_eval
    run = Path(record(results, "right", "society")["folder"])
    assert (run / "log.jsonl").is_file() and (run / "summary.json").is_file()
    again = society("replay", str(run), "--rerun", timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "identical" in again.stdout + again.stderr


def test_compare_shows_what_changed_between_two_evals(
    scripted_eval: tuple[subprocess.CompletedProcess[str], dict[str, Any], Path], tmp_path: Path
) -> None:
    _, results, where = scripted_eval
    after = json.loads(json.dumps(results))
    flipped = record(after, "wrong", "society")
    flipped["passed"], flipped["status"] = True, "succeeded"
    (tmp_path / "after.json").write_text(json.dumps(after))
    done = society("eval", "compare", str(where / "results.json"), str(tmp_path / "after.json"))
    assert done.returncode == 0, done.stderr
    assert "wrong" in done.stdout and "1 answer(s) now pass, 0 no longer pass" in done.stdout
    assert "1/3 → 2/3" in done.stdout
    bad = society("eval", "compare", str(where / "results.json"), str(SUITES / "scripted.yaml"))
    assert bad.returncode == 2 and "not the results of `society eval`" in bad.stderr


def test_a_malformed_suite_exits_2_naming_file_line_and_field(tmp_path: Path) -> None:
    done = society("eval", str(SUITES / "malformed.yaml"), "--runs-dir", str(tmp_path))
    assert done.returncode == 2
    assert "malformed.yaml:10: cases.1.graders.0:" in done.stderr and "'numbr'" in done.stderr
    assert "malformed.yaml:13: cases.2.grader: unknown key" in done.stderr
    assert not list(tmp_path.iterdir())  # nothing started


def test_an_unreachable_model_server_fails_before_any_case_starts(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    done = society(
        "eval",
        str(SUITES / "scripted.yaml"),
        "--model",
        "m",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--runs-dir",
        str(tmp_path),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot reach the model server" in done.stderr
    assert not list(tmp_path.iterdir())  # no eval folder, no case


def test_the_loop_repairs_from_a_visible_check_and_records_its_limits(tmp_path: Path) -> None:
    out = tmp_path / "loop.json"
    done = society(
        "eval", str(SUITES / "scripted.yaml"), "--only", "right", "--baseline", "program,loop",
        "--no-society", "--loop-repairs", "1", "--loop-samples", "0", "--runs-dir", str(tmp_path), "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())
    assert results["arms"] == ["program", "loop"]  # --no-society: the baselines alone
    assert results["settings"]["loop_repairs"] == 1 and results["settings"]["loop_samples"] == 0
    loop = record(results, "right", "loop")
    assert loop["passed"] and loop["calls"] == 2 and loop["answer"] == "42"
    calls = [json.loads(x) for x in (Path(loop["folder"]) / "calls.jsonl").read_text().splitlines()]
    assert "the product of 6 and 7 is even" in calls[1]["request"]["messages"][-1]["content"]
    assert "calls per solved" in done.stdout and "loop" in done.stdout
