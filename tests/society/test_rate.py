"""`society rate`, a real CLI process on a real run: the rated run becomes a feedback case
whose grader passes the person's expected value and fails another; the rater is the
credential's person, and a credential the run did not issue is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bus import Envelope
from bus.payloads import Rating
from society.credentials import RunCredentials
from society.eval.graders import Submission, grade_all
from society.eval.suite import load_suite

from .conftest import RunYaml
from .test_real_work import DAYS, scenario

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(180)]

ROOT = Path(__file__).parents[2]


def rate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "society.cli", "rate", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_a_rated_run_becomes_a_case_graded_by_the_persons_expectation(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    outcome = await run_yaml(scenario((None, DAYS), cross_check=False))
    run_dir = outcome.run_dir
    cred = RunCredentials(run_dir, outcome.run_id).issue("human/ada")  # as `society invite`
    creds = tmp_path / "ada.json"
    creds.write_text(json.dumps(cred.to_json()))
    suite = tmp_path / "feedback.yaml"
    common = ["--creds", str(creds), "--suite", str(suite), "--score", "2"]

    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({**cred.to_json(), "password": "guessed"}))
    refused = rate(
        str(run_dir),
        "--creds",
        str(forged),
        "--suite",
        str(suite),
        "--score",
        "1",
        "--expect",
        "1",
        cwd=tmp_path,
    )
    assert refused.returncode == 2 and "did not issue this credential" in refused.stderr
    assert not suite.exists()
    unsaid = rate(str(run_dir), *common, cwd=tmp_path)
    assert unsaid.returncode == 2 and "--expect VALUE or --check REGEX" in unsaid.stderr

    done = rate(
        str(run_dir), *common, "--remark", "count the last day too", "--expect", "319", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    [case] = load_suite(suite).cases
    assert case.goal.startswith("How many days") and case.inputs["end"] == "2025-01-27"
    assert case.remark == "ada rated the run 2/5: count the last day too"
    assert "rated-by:ada" in case.tags
    right = await grade_all(case.graders, Submission("319 days"), case.inputs, None)
    wrong = await grade_all(case.graders, Submission("318 days"), case.inputs, None)
    assert [g.passed for g in right] == [True] and [g.passed for g in wrong] == [False]

    again = rate(str(run_dir), *common, "--check", r"\b320\b", cwd=tmp_path)
    assert again.returncode == 0 and "replaced its earlier rating" in again.stdout
    [case] = load_suite(suite).cases
    assert case.graders[0].kind == "regex"


async def test_ratings_said_in_the_run_with_a_right_answer_are_collected_as_cases(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    outcome = await run_yaml(scenario((None, DAYS), cross_check=False))
    assert outcome.log_path is not None
    # what `rate count 2 expect=319 ...` in `society attach` sends (the bus checked `by`
    # against the sender's credential when it was said), and a rating with no answer
    said = [
        Rating(task_id="count", score=2, comment="both ends", by="ada", expect="319"),
        Rating(task_id="count", score=4, comment="fine", by="bo"),
    ]
    with outcome.log_path.open("a") as log:
        for n, rating in enumerate(said, start=10_000):
            env = Envelope.new(outcome.run_id, f"human/{rating.by}", rating, task_id="count")
            subject = f"society.{outcome.run_id}.human_answer"
            log.write(
                json.dumps({"seq": n, "subject": subject, "envelope": env.model_dump(mode="json")})
                + "\n"
            )
    suite = tmp_path / "feedback.yaml"
    done = rate(str(outcome.run_dir), "--collect", "--suite", str(suite), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 rating(s) kept as cases; 1 without a right answer" in " ".join(done.stdout.split())
    [case] = load_suite(suite).cases
    assert case.remark == "ada rated the run 2/5: both ends"
    right = await grade_all(case.graders, Submission("319 days"), case.inputs, None)
    assert [g.passed for g in right] == [True]
