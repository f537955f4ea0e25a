"""Risk–coverage and AUROC, computed on a results file written by hand."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from society.eval.report import render_risk, render_roles
from society.eval.results import load_results
from society.eval.risk import auroc, precision_at, risk_coverage, threshold_for

pytestmark = pytest.mark.timeout(30)

# Eight answers by "vote" (its confidence stated) and four by "loop" (none stated): by hand,
# vote's two most confident are right, the next two split 1-1, the next two are a tie of one
# right and one wrong, and the last two are wrong.
HAND = {
    "suite": "dev",
    "model": "m",
    "arms": ["vote", "loop"],
    "records": [
        {"case": "a", "arm": "vote", "passed": True, "status": "succeeded", "confidence": 1.0},
        {"case": "b", "arm": "vote", "passed": True, "status": "succeeded", "confidence": 0.9},
        {"case": "c", "arm": "vote", "passed": True, "status": "succeeded", "confidence": 0.8},
        {"case": "d", "arm": "vote", "passed": False, "status": "succeeded", "confidence": 0.7},
        {"case": "e", "arm": "vote", "passed": True, "status": "unverified", "confidence": 0.5},
        {"case": "f", "arm": "vote", "passed": False, "status": "unverified", "confidence": 0.5},
        {"case": "g", "arm": "vote", "passed": False, "status": "failed", "confidence": 0.2},
        {"case": "h", "arm": "vote", "passed": False, "status": "failed", "confidence": 0.1},
        {"case": "a", "arm": "loop", "passed": True, "status": "succeeded"},
        {"case": "b", "arm": "loop", "passed": False, "status": "succeeded"},
        {"case": "c", "arm": "loop", "passed": True, "status": "unverified"},
        {"case": "d", "arm": "loop", "passed": False, "status": "failed"},
    ],
}


def test_precision_at_each_coverage_and_the_auroc_are_those_worked_by_hand(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(HAND))
    results = load_results(path)
    vote = risk_coverage(results.records, "vote")
    # 25 %: a, b (2/2); 50 %: a-d (3/4); 75 %: a-d and the tie e, f (4/6); 100 %: 4/8.
    assert vote.precision == pytest.approx((1.0, 0.75, 4 / 6, 0.5))
    # right {1.0, .9, .8, .5} against wrong {.7, .5, .2, .1}: 14 wins and one tie of 16 pairs
    assert vote.auroc == pytest.approx(14.5 / 16)
    # loop states none: ranked by its ending (succeeded 1, unverified 0.5, failed 0)
    loop = risk_coverage(results.records, "loop")
    assert loop.precision == pytest.approx((0.5, 0.5, 2 / 3, 0.5))
    assert loop.auroc == pytest.approx(2.5 / 4)  # a~b tie, a>d, c<b, c>d
    shown = io.StringIO()
    render_risk(Console(file=shown, width=120), results)
    text = shown.getvalue()
    assert "AUROC" in text and "0.91" in text and "67%" in text
    assert "loop: no confidence stated" in text


def test_a_coverage_that_cuts_a_tie_takes_the_ties_mean() -> None:
    # four answers at one confidence, two right: any cut through them is half right
    tied = [(0.5, True), (0.5, False), (0.5, True), (0.5, False)]
    assert precision_at(tied, 0.25) == 0.5 and precision_at(tied, 0.75) == 0.5
    assert precision_at([], 0.5) is None
    assert auroc(tied) == 0.5
    assert auroc([(1.0, True)]) is None  # no wrong answer: nothing to rank against


def test_the_threshold_is_the_lowest_confidence_that_keeps_the_precision(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(HAND))
    records = load_results(path).records
    assert threshold_for(records, "vote", 1.0) == 0.8  # a, b, c right; d at 0.7 is wrong
    assert threshold_for(records, "vote", 0.75) == 0.7  # 3 of 4
    assert threshold_for(records, "vote", 0.5) == 0.1  # 4 of 8 at the bottom
    assert threshold_for(records, "loop", 1.0) is None  # its most confident level is 1 of 2


def test_the_roles_that_worked_are_counted_per_role(tmp_path: Path) -> None:
    worked = {
        "suite": "tatqa-dev",
        "model": "m",
        "arms": ["society", "program"],
        "records": [
            {"case": "a", "arm": "society", "passed": True, "status": "succeeded",
             "roles": {"researcher": 2, "coder": 3}},
            {"case": "b", "arm": "society", "passed": False, "status": "unverified",
             "roles": {"researcher": 1, "coder": 4, "planner": 1}},
            {"case": "c", "arm": "society", "passed": True, "status": "succeeded",
             "roles": {"coder": 2}},
            {"case": "a", "arm": "program", "passed": True, "status": "unverified"},
        ],
    }  # fmt: skip
    path = tmp_path / "results.json"
    path.write_text(json.dumps(worked))
    shown = io.StringIO()
    render_roles(Console(file=shown, width=120), load_results(path))
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in shown.getvalue().splitlines()]
    rows = {c[0]: c[1:] for c in cells if c}
    assert rows["researcher"] == ["2/3", "3", "1"]
    assert rows["coder"] == ["3/3", "9", "2"]
    assert rows["planner"] == ["1/3", "1", "0"]
