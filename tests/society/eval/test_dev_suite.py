"""The dev suite as an instrument: big and varied enough, every expected answer recomputed by
its key's program, every grader failing the key's plausible wrong answers and an answer that
lists many numbers (check programs run in the real sandbox), and a train/val split that is
the same on every machine with every kind in both halves."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from society.eval.answer_key import check_key, run_solution
from society.eval.split import draw_split
from society.eval.suite import KINDS, PythonCheck, SplitSpec, load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT / "evals" / "dev.yaml")
SEEN = [  # the cases read while tuning the last wave: they stay in train
    "days-between", "fibonacci-40", "divisible-7-xor-11", "mean-median-std",
    "primes-below-10000", "top-two-words", "fahrenheit-to-kelvin", "marathon-pace",
    "csv-region-revenue", "csv-top-product", "csv-best-region", "days-above-mean",
    "reverse-words", "count-palindromes", "caesar-decode", "count-vowels", "compound-interest",
    "gcd-and-lcm", "leap-years", "moon-landing-weekday", "minutes-between", "seconds-in-span",
    "determinant-trace", "primes-times-fibonacci", "sum-square-difference", "shipping-zone-c",
    "shipping-heavy-zone-b", "leave-part-time",
]  # fmt: skip


def test_the_suite_has_120_cases_in_ten_kinds_each_tagged_and_keyed() -> None:
    assert len(SUITE.cases) >= 120
    kinds = Counter(c.kind for c in SUITE.cases)
    assert None not in kinds and len(kinds) >= 10 and set(kinds) <= set(KINDS)
    assert min(kinds.values()) >= 10, kinds
    assert all(c.key is not None and c.key.wrong for c in SUITE.cases)


def test_the_word_problems_come_from_gsm8ks_train_split_with_their_source_line() -> None:
    words = [c for c in SUITE.cases if c.kind == "word-problems"]
    assert len(words) >= 10
    for case in words:
        assert "grade_school_math/data/train.jsonl:" in case.source, case.id
        assert "test" not in case.source.split(":")[0]


def test_the_split_is_drawn_alike_every_time_with_every_kind_in_both_halves() -> None:
    again = load_suite(ROOT / "evals" / "dev.yaml")
    assert [(c.id, c.split) for c in again.cases] == [(c.id, c.split) for c in SUITE.cases]
    halves = Counter(c.split for c in SUITE.cases)
    assert set(halves) == {"train", "val"}
    assert 0.35 <= halves["val"] / len(SUITE.cases) <= 0.45, halves
    for kind in SUITE.kinds():
        assert {c.split for c in SUITE.cases if c.kind == kind} == {"train", "val"}, kind
    assert all(SUITE.case(i).split == "train" for i in SEEN)


def test_another_seed_draws_another_split_and_pinned_cases_stay_where_they_are() -> None:
    assert SUITE.split is not None
    unpinned = [
        c.model_copy(update={"split": None}) if c.id not in SEEN else c for c in SUITE.cases
    ]
    first = draw_split(unpinned, SUITE.split)
    assert first == draw_split(unpinned, SUITE.split)
    other = draw_split(unpinned, SplitSpec(seed=SUITE.split.seed + 1, val=SUITE.split.val))
    assert other != first
    assert all(other[i] == first[i] == "train" for i in SEEN)


@pytest.mark.docker
@pytest.mark.parametrize("case_id", [c.id for c in SUITE.cases])
async def test_a_cases_key_holds(case_id: str, shared_sandbox: object) -> None:
    """Its solution's answer passes every grader; each wrong answer and a list of many
    numbers fails one."""
    case = SUITE.case(case_id)
    code = shared_sandbox if any(isinstance(g, PythonCheck) for g in case.graders) else None
    check = await check_key(SUITE, case, code)  # type: ignore[arg-type]
    assert check.ok, check.problems


async def test_a_key_that_does_not_hold_is_caught() -> None:
    """A grader value typed in wrong, a wrong answer that passes, and a grader that any list
    of numbers satisfies are each reported."""
    case = SUITE.case("fibonacci-40")
    assert case.key is not None
    ran, output = run_solution(SUITE, case)
    assert ran and "102334155" in output
    typo = type(case).model_validate(
        {**case.model_dump(), "graders": [{"kind": "number", "value": 102334156}]}
    )
    assert not (await check_key(SUITE, typo, None)).ok
    lax_key = case.key.model_copy(update={"wrong": ["F(40) = 102334155, or so"]})
    assert not (await check_key(SUITE, case.model_copy(update={"key": lax_key}), None)).ok
    listing = type(case).model_validate(
        {
            **case.model_dump(),
            "graders": [{"kind": "number", "value": 102334155, "max_numbers": 500}],
        }
    )
    check = await check_key(SUITE, listing, None)
    assert check.problems == ["an answer listing many numbers passes every grader"]
