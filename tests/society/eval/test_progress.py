"""What an eval says after each answer: right of answered per arm, and the time left."""

from __future__ import annotations

from society.eval.progress import Tally, duration
from society.eval.results import Record


def _record(arm: str, passed: bool, wall_s: float = 0.0) -> Record:
    return Record(case="c", arm=arm, passed=passed, status="unverified", wall_s=wall_s)


def test_the_time_left_is_each_arms_own_pace_times_what_it_still_has_to_answer() -> None:
    tally = Tally.of(["direct", "loop"], ["direct"] * 3 + ["loop"] * 3, [])
    assert tally.line() == "" and tally.left_s() is None  # nothing to go by yet
    tally.add(_record("direct", True), 20.0)
    # the loop has no pace of its own yet: it goes by the direct arm's
    assert tally.left_s() == 2 * 20.0 + 3 * 20.0
    tally.add(_record("loop", False), 120.0)
    tally.add(_record("direct", False), 40.0)
    assert tally.left_s() == 1 * 30.0 + 2 * 120.0
    assert tally.line() == "direct 1/2 right · loop 0/1 right · about 5 min left"


def test_a_resumed_eval_counts_its_kept_answers_and_goes_by_their_pace_until_it_has_its_own() -> (
    None
):
    kept = [_record("vote", True, wall_s=100.0), _record("vote", True, wall_s=140.0)]
    tally = Tally.of(["vote"], ["vote"] * 90, kept)
    assert tally.left_s() == 90 * 120.0
    assert tally.line() == "vote 2/2 right · about 3 h 00 min left"
    tally.add(_record("vote", False), 60.0)
    assert tally.left_s() == 89 * 60.0
    assert tally.line().startswith("vote 2/3 right · about 1 h 29 min left")


def test_nothing_left_says_no_time() -> None:
    tally = Tally.of(["program"], ["program"], [])
    tally.add(_record("program", True), 12.0)
    assert tally.line() == "program 1/1 right"


def test_durations_read_at_a_glance() -> None:
    assert duration(20) == "under a minute"
    assert duration(12 * 60 + 10) == "about 12 min"
    assert duration(65 * 60) == "about 1 h 05 min"
