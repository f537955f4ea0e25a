"""Solve, verify, select on scripted candidates and a scripted check (no model, no sandbox):
the largest group that passes the check is kept; agreement alone, or a check that cannot
fail, verifies nothing; drawing stops once two computations agree and pass."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from roles.coder.select import VARIANTS, select
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.verifier.checks import Judged


def cand(answer: JsonValue, code: str) -> Solved:
    return Solved({"answer": answer}, {}, f"exec-{code}", 1, code)


class Draws:
    """Candidates in order (a TaskFailed for None)."""

    def __init__(self, *cands: Solved | None) -> None:
        self.left = list(cands)
        self.notes: list[str] = []

    async def __call__(self, note: str) -> Solved:
        self.notes.append(note)
        c = self.left.pop(0)
        if c is None:
            raise TaskFailed("code still failing")
        return c


def positive(empty_passes: bool = False):  # type: ignore[no-untyped-def]
    """A check that fails answers stating a negative number."""
    seen: list[list[str]] = []

    async def judge(answers: list[str]) -> Judged:
        seen.append(answers)
        outcomes = [("fail", "negative") if "-" in a else ("pass", "") for a in answers]
        if empty_passes:
            return Judged(outcomes, False, "the check passes an empty answer", "exec-check")
        return Judged(outcomes, True, "", "exec-check")

    judge.seen = seen  # type: ignore[attr-defined]
    return judge


async def test_two_computations_that_agree_and_pass_stop_the_drawing() -> None:
    draws = Draws(cand("319 days", "a = 1"), cand("319", "b = 2\nc = 3"), cand("7", "never"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3)
    assert chosen.kept.outputs == {"answer": "319 days"} and chosen.drawn == 2
    assert [(v.kind, v.passed, v.independent) for v in chosen.verdicts] == [
        ("agreement", True, False),
        ("property", True, True),
    ]
    assert chosen.note == "" and draws.notes == list(VARIANTS[:2])


async def test_a_pair_that_repeats_one_misreading_is_not_kept_when_the_check_fails_it() -> None:
    draws = Draws(cand("-19 days", "x = 1"), cand("-19", "y = 2\nz = 3"), cand("319", "w = 4"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3)
    assert chosen.kept.outputs == {"answer": "319"}
    verdicts = {v.kind: v.passed for v in chosen.verdicts}
    assert verdicts == {"agreement": False, "property": True}
    assert chosen.note == "no second candidate agreed"


async def test_a_check_that_cannot_fail_leaves_agreement_unverified() -> None:
    draws = Draws(cand("12", "a = 1"), cand("12", "b = 2\nc = 3"))
    chosen = await select(draws, positive(empty_passes=True), "answer", frozenset(), 2)
    assert [v.kind for v in chosen.verdicts] == ["agreement"]
    assert "counts for nothing" in chosen.note


async def test_a_check_that_fails_every_candidate_is_set_aside() -> None:
    draws = Draws(cand("-1", "a = 1"), cand("-2", "b = 2"), cand("-1", "c = 3\nd = 4"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3)
    assert chosen.kept.outputs == {"answer": "-1"}
    assert {v.kind: v.passed for v in chosen.verdicts} == {"agreement": True}
    assert "likelier wrong than all of them" in chosen.note


async def test_one_program_twice_is_one_computation() -> None:
    draws = Draws(cand("5", "print(5)"), cand("5", "print(5)  # again"), None)
    chosen = await select(draws, positive(), "answer", frozenset(), 3)
    assert {v.kind: v.passed for v in chosen.verdicts}["agreement"] is False
    assert chosen.failures == ["code still failing"] and chosen.drawn == 3


async def test_no_candidate_that_ran_is_a_failure() -> None:
    draws = Draws(None, None)
    with pytest.raises(TaskFailed, match="code still failing"):
        await select(draws, positive(), "answer", frozenset(), 2)
