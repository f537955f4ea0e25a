"""The vote baseline (scripted model, real sandbox): programs sampled at its temperature with
seeds of their own, run, grouped by value; the largest group answers and its share is the
confidence in the results."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from society.eval.context import VoteSettings
from society.eval.report import render_results
from society.eval.runner import EvalSettings, run_eval
from society.eval.suite import Suite

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]


def program(prints: str) -> str:
    return f"```python\nprint({prints!r})\n```"


def suite(answers: list[str]) -> Suite:
    return Suite.model_validate(
        {
            "name": "tiny",
            "defaults": {"models": {"default": {"provider": "scripted"}}},
            "cases": [
                {
                    "id": "sum",
                    "goal": "What is 19 + 23?",
                    "graders": [{"kind": "number", "value": 42}],
                    "script": {"vote": [{"answer": a} for a in answers]},
                }
            ],
        }
    )


async def test_the_largest_group_of_values_answers_with_its_share_as_confidence(
    tmp_path: Path,
) -> None:
    answers = [
        program("41"),
        program("The sum is 42."),
        "no code at all",  # no program: not a vote
        program("42"),
        "```python\nraise SystemExit(3)\n```",  # did not run: not a vote
        program("41.0"),
        program("42.00"),
    ]
    settings = EvalSettings(
        arms=["vote"], runs_dir=tmp_path, vote=VoteSettings(samples=7, temperature=0.7), seed=3
    )
    results, where = await run_eval(suite(answers), settings, Console(file=io.StringIO()))
    (record,) = results.records
    assert record.passed and record.status == "succeeded" and record.calls == 7
    assert record.answer == "The sum is 42." and record.confidence == pytest.approx(3 / 7)
    assert record.views == ["program"] * 3  # the winning samples
    folder = Path(str(record.folder))
    calls = [json.loads(line) for line in (folder / "calls.jsonl").read_text().splitlines()]
    args = [c["request"]["create_args"] for c in calls]
    assert args == [{"temperature": 0.7, "seed": 3 + i} for i in range(7)]
    votes = json.loads((folder / "votes.json").read_text())
    assert votes["groups"] == [2, 3]  # 41 and 41.0, then the three 42s
    assert json.loads(where.read_text())["records"][0]["confidence"] == pytest.approx(3 / 7)
    shown = io.StringIO()
    render_results(Console(file=shown, width=160), results)
    assert "AUROC" in shown.getvalue()


async def test_a_right_value_outvoted_is_graded_and_shown_as_drawn(tmp_path: Path) -> None:
    answers = [program("41"), program("42"), program("41.0")]
    settings = EvalSettings(arms=["vote"], runs_dir=tmp_path, vote=VoteSettings(samples=3))
    results, where = await run_eval(suite(answers), settings, Console(file=io.StringIO()))
    (record,) = results.records
    assert record.answer == "41" and not record.passed
    assert record.views == ["program"] * 2  # 41 and 41.0
    assert [(o.value, o.views, o.passed) for o in record.others] == [("42", ["program"], True)]
    assert record.drawn_right
    assert json.loads(where.read_text())["records"][0]["others"][0]["passed"] is True
    shown = io.StringIO()
    render_results(Console(file=shown, width=160), results)
    assert "0 / 1" in shown.getvalue()  # right, and a right value drawn


async def test_no_sample_that_runs_is_a_failed_answer_with_no_confidence(tmp_path: Path) -> None:
    answers = ["```python\nraise SystemExit(3)\n```", "nothing"]
    settings = EvalSettings(arms=["vote"], runs_dir=tmp_path, vote=VoteSettings(samples=2))
    results, _ = await run_eval(suite(answers), settings, Console(file=io.StringIO()))
    (record,) = results.records
    assert record.status == "failed" and record.confidence == 0.0 and not record.passed
    assert record.calls == 2
