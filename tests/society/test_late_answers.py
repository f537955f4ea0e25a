"""People who answer late: a run that only waits for a person parks (its processes exit)
and is continued by `society resume`, where the question is answered; ratings are kept
for a stated window after the final message, and refused after it with the reason."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bus.logfile import read_jsonl
from bus.payloads import Answer, Control, Final, Lesson, Question, Rating
from roles.settings import HumanSettings
from tests.proc import alive

from .conftest import ROOT
from .humans import Proc

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(400)]

PARKS = """
name: parks
goal: {text: Explain what a prime number is.}
models: {default: {provider: scripted}}
roles:
  human: {plan_approval: true, timeout_s: 86400, park_after_s: 8}  # the resumed run must see pat first, even on a loaded machine
  planner: {one_task_first: false}  # a plan of one research task, for the person to approve
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer: {success_criteria: [a prime is defined], tasks: [{id: define, role: researcher, description: Define a prime number., outputs: [answer]}]}
  researcher:
    - answer: {outputs: {answer: "A whole number above 1 divisible only by 1 and itself."}, sources: [primes.md]}
"""


def _written(tmp_path: Path, name: str, text: str) -> Path:
    """The scenario in ``tmp_path``, beside the documents its researcher reads (and cites)."""
    (tmp_path / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    scenario = tmp_path / name
    scenario.write_text(text)
    return scenario


def _payloads(run_dir: Path) -> list[object]:
    read = read_jsonl(run_dir / "log.jsonl")
    assert read.problems == [], read.problems
    return [r.envelope.payload for r in read.records if r.envelope]


async def test_a_parked_question_is_answered_after_the_run_is_resumed(tmp_path: Path) -> None:
    scenario = _written(tmp_path, "parks.yaml", PARKS)
    runs, run_id = tmp_path / "runs", f"parks-{time.time_ns()}"
    run_dir = runs / run_id
    where = ("--runs-dir", str(runs))
    run = await Proc.start("run", str(scenario), *where, "--run-id", run_id, name="run")
    try:
        assert await run.finish(timeout=240) == 75, run.transcript  # parked: continues later
    finally:
        run.stop()
    assert f"continue with: society resume {run_id}" in run.transcript
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "parked"
    assert not alive(json.loads((run_dir / "server.json").read_text())["pid"])
    parked = _payloads(run_dir)
    assert [p.kind for p in parked if isinstance(p, Question)] == ["plan_approval"]
    assert not [p for p in parked if isinstance(p, Answer | Final)]
    assert [p.action for p in parked if isinstance(p, Control)] == ["park"]

    attach = await Proc.start("attach", run_id, *where, name="attach")
    assert await attach.finish(timeout=120) == 3, attach.transcript  # nobody to talk to
    assert "is parked, waiting for a person: continue it with" in attach.transcript

    resumed = await Proc.start("resume", run_id, *where, "--human", "--name", "pat", name="resume")
    try:
        await resumed.expect(r"\? #1 \[manager-0-1\] plan approval", timeout=180)
        await resumed.send("approve")
        await resumed.expect(r"pat answers #1 \[manager-0-1\]: approve", timeout=120)
        assert await resumed.finish(timeout=180) == 0, resumed.transcript
    finally:
        resumed.stop()
    payloads = _payloads(run_dir)
    assert len([p for p in payloads if isinstance(p, Question)]) == 1  # waited for, not asked again
    answers = [(p.by, p.approved) for p in payloads if isinstance(p, Answer)]
    assert answers == [("pat", True)]
    assert [p.status for p in payloads if isinstance(p, Final)] == ["succeeded"]


RATED = """
name: rated
goal: {text: Explain what a prime number is.}
models: {default: {provider: scripted}}
roles:
  human: {rating_window_s: 120}
  planner: {one_task_first: false}  # a plan of one research task, whose result is rated
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer: {success_criteria: [a prime is defined], tasks: [{id: define, role: researcher, description: Define a prime number., outputs: [answer]}]}
  researcher:
    - answer: {outputs: {answer: "A whole number above 1 divisible only by 1 and itself."}, sources: [primes.md]}
"""


async def test_a_rating_after_the_final_is_kept_within_its_window(tmp_path: Path) -> None:
    scenario = _written(tmp_path, "rated.yaml", RATED)
    runs, run_id = tmp_path / "runs", f"rated-{time.time_ns()}"
    args = ("--runs-dir", str(runs), "--run-id", run_id, "--human", "--name", "pat")
    run = await Proc.start("run", str(scenario), *args, name="run")
    try:
        await run.expect(r"final: succeeded", timeout=180)
        await run.expect(r"ratings are open for 120s", timeout=60)
        await run.send("rate define 5 short and right")
        await run.expect(r"pat rated the result of 'Define a prime number.' 5/5", timeout=60)
        await run.send("quit")
        assert await run.finish(timeout=120) == 0, run.transcript
    finally:
        run.stop()
    payloads = _payloads(runs / run_id)
    final_at = next(i for i, p in enumerate(payloads) if isinstance(p, Final))
    after = payloads[final_at:]
    assert [(p.task_id, p.score) for p in after if isinstance(p, Rating)] == [("define", 5)]
    assert [p.task_kind for p in after if isinstance(p, Lesson)] == ["feedback"]


def test_a_rating_past_the_window_is_refused_with_the_reason() -> None:
    settings = HumanSettings(rating_window_s=60)
    final_ts = 1_800_000_000 * 1_000_000
    assert settings.ratings_closed(None, 1_900_000_000) is None  # no final yet
    assert settings.ratings_closed(final_ts, 1_800_000_059) is None
    late = settings.ratings_closed(final_ts, 1_800_000_061)
    assert late is not None
    assert "closed at 08:01:00 UTC, 60s after its final message" in late
    assert "roles.human.rating_window_s" in late
