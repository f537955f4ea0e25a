"""Cases that do not end by themselves: a run that crashes or runs past its time is
recorded as such, and the eval goes on to the next case. And what a run drew and did not
keep is graded beside its answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from society.eval.runner import EvalSettings, run_eval
from society.eval.suite import Suite

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(300)]

SPEC = {"instructions": "without seeing it", "answer": {"kind": "count"}}
"""The verifier's statement, from the goal alone: a count."""
CODE = (
    "```python\nimport json\ntotal = 1 + 1\n"
    "json.dump({'answer': str(total)}, open('outputs.json', 'w'))\n```"
)
CHECK = {
    "match": "independent check of a teammate",
    "answer": "```python\nterms = [1, 1]\nprint(sum(terms))\n```",
}
"""The second program, its own computation, that agrees."""


def suite(tmp_path: Path) -> Suite:
    (tmp_path / "notes.md").write_text("one plus one is two")
    # the first plan is one program for the goal (no planner call): the script answers the
    # live path, the verifier's statement and two programs that agree
    good = {"coder": [SPEC, CHECK, {"answer": CODE}]}
    slow = {"coder": [SPEC, CHECK, {"answer": CODE, "delay_s": 120}]}
    return Suite.model_validate(
        {
            "name": "edges",
            "defaults": {
                "models": {"default": {"provider": "scripted"}},
                "budgets": {"wall_s": 60, "calls": 10},
                "sandbox": {"timeout_s": 20, "pool_size": 1},
            },
            "cases": [
                {
                    "id": "crash",
                    "goal": "What is 1 + 1?",
                    "documents": ["notes.md"],
                    "graders": [{"kind": "number", "value": 2}],
                    "script": good,
                },
                {
                    "id": "slow",
                    "goal": "What is 1 + 1?",
                    "graders": [{"kind": "number", "value": 2}],
                    "script": slow,
                },
                {
                    "id": "fine",
                    "goal": "What is 1 + 1?",
                    "graders": [{"kind": "number", "value": 2}],
                    "script": good,
                },
            ],
            "base_dir": tmp_path,
        }
    )


async def test_a_crash_and_a_timeout_are_recorded_and_the_eval_goes_on(tmp_path: Path) -> None:
    edges = suite(tmp_path)
    (tmp_path / "notes.md").unlink()  # gone after loading: the run cannot start
    settings = EvalSettings(arms=["society"], runs_dir=tmp_path / "runs", case_timeout_s=8)
    console = Console(file=(tmp_path / "progress.txt").open("w"), width=120)
    results, where = await run_eval(edges, settings, console)
    by_case = {r.case: r for r in results.records}
    assert by_case["crash"].status == "crashed" and "corpus" in by_case["crash"].reason
    assert by_case["slow"].status == "timeout" and not by_case["slow"].passed
    assert by_case["fine"].status == "succeeded" and by_case["fine"].passed
    assert where.is_file() and results.finished
    progress = (tmp_path / "progress.txt").read_text()
    assert "[1/3] crash · society" in progress and "[3/3] fine · society" in progress


async def test_the_values_the_society_drew_and_did_not_keep_are_graded(tmp_path: Path) -> None:
    # two programs disagree, 2 (asked directly) and 3 (asked as an independent check); on a
    # tie of programs the one asked furthest from the direct way is kept: 3, which is wrong
    other = {
        "match": "independent check of a teammate",
        "answer": CHECK["answer"].replace("[1, 1]", "[1, 2]"),
    }
    split = Suite.model_validate(
        {
            "name": "split",
            "defaults": {
                "models": {"default": {"provider": "scripted"}},
                "budgets": {"wall_s": 120, "calls": 10},
                "sandbox": {"timeout_s": 20, "pool_size": 1},
            },
            "cases": [
                {
                    "id": "split",
                    "goal": "What is 1 + 1?",
                    "graders": [{"kind": "number", "value": 2}],
                    "script": {"coder": [SPEC, other, {"answer": CODE}]},
                }
            ],
        }
    )
    settings = EvalSettings(arms=["society"], runs_dir=tmp_path / "runs")
    console = Console(file=(tmp_path / "progress.txt").open("w"), width=120)
    results, where = await run_eval(split, settings, console)
    (record,) = results.records
    assert not record.passed and record.answer is not None and "3" in record.answer
    assert [(o.value, o.views, o.passed) for o in record.others] == [("2", ["program"], True)]
    assert record.views == ["program"]  # the kept value's views, beside the others'
    assert record.drawn_right  # a right value drawn, and not kept
    assert json.loads(where.read_text())["records"][0]["others"][0]["value"] == "2"
