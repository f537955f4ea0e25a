"""The dev suite's graders: every case passes a right answer and fails a plausible wrong one
(a real answer key, checked; check programs run in the real sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest

from society.eval.graders import Submission, grade_all
from society.eval.suite import PythonCheck, load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT / "evals" / "dev.yaml")

ANSWERS: dict[str, tuple[str, str]] = {
    "days-between": ("319 days; 2025-01-27 is a Monday.", "318 days; it is a Monday."),
    "fibonacci-40": ("F(40) = 102334155", "F(40) = 63245986"),
    "divisible-7-xor-11": ("2079", "2209"),
    "mean-median-std": ("mean 11.95, median 11.5, std 5.55", "mean 11.95, median 11.5, std 5.85"),
    "primes-below-10000": ("There are 1229 primes below 10000.", "There are 1230 primes."),
    "top-two-words": ("data (5 times), model (4 times)", "model (5 times), data (4 times)"),
    "fahrenheit-to-kelvin": ("310.15 K", "37.00 K"),
    "marathon-pace": ("7.84 min/mile", "4.87 min/km"),
    "csv-region-revenue": ("North: 89.00", "North: 19 units"),
    "csv-top-product": ("widget, 54 units", "gizmo, 15 units"),
    "csv-best-region": ("East with 115.25", "West with 97.50"),
    "days-above-mean": ("5 days", "4 days"),
    "reverse-words": ("dogs lazy over jumps fox brown quick the", "sgod yzal revo spmuj"),
    "count-palindromes": ("8 palindromes", "7 palindromes"),
    "caesar-decode": ("The eagle lands at midnight", "Zkh hdjoh"),
    "count-vowels": ("18 vowels", "19 vowels"),
    "compound-interest": ("1647.01 EUR", "1628.89 EUR"),
    "gcd-and-lcm": ("gcd 21, lcm 23562", "gcd 21, lcm 494802"),
    "leap-years": ("49 leap years", "51 leap years"),
    "moon-landing-weekday": ("It was a Sunday.", "It was a Monday."),
    "minutes-between": ("1950 minutes", "1890 minutes"),
    "seconds-in-span": ("2005200 seconds", "1987200 seconds"),
    "determinant-trace": ("determinant -11, trace 12", "determinant 11, trace 12"),
    "primes-times-fibonacci": ("639 * 6765 = 4322835", "639 + 6765 = 7404"),
    "sum-square-difference": ("25164150", "25502500"),
    "shipping-zone-c": ("17.40 EUR", "18.13 EUR"),
    "shipping-heavy-zone-b": ("35.42 EUR", "30.80 EUR"),
    "leave-part-time": ("18.5 days", "18.4 days"),
}


def test_the_suite_is_big_enough_and_every_case_has_an_answer_key() -> None:
    assert len(SUITE.cases) >= 24
    assert {c.id for c in SUITE.cases} == set(ANSWERS)


@pytest.mark.docker
@pytest.mark.parametrize("case_id", sorted(ANSWERS))
async def test_a_case_passes_its_right_answer_and_fails_a_plausible_wrong_one(
    case_id: str, shared_sandbox: object
) -> None:
    case = SUITE.case(case_id)
    right, wrong = ANSWERS[case_id]
    code = shared_sandbox if any(isinstance(g, PythonCheck) for g in case.graders) else None
    good = await grade_all(case.graders, Submission(right), case.inputs, code)  # type: ignore[arg-type]
    assert all(g.passed for g in good), good
    bad = await grade_all(case.graders, Submission(wrong), case.inputs, code)  # type: ignore[arg-type]
    assert not all(g.passed for g in bad), bad
