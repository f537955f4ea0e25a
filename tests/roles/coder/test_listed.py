"""The items of an answer written as a list, and the verdict on one longer than asked."""

from __future__ import annotations

from roles.coder.listed import items_of, over_listed


def test_items_are_parted_by_semicolons_and_empty_ones_dropped() -> None:
    assert items_of("$0.9 million; $0.6 million") == ["$0.9 million", "$0.6 million"]
    assert items_of("Revenue rose by 5%, mainly in Asia.") == [
        "Revenue rose by 5%, mainly in Asia."
    ]
    assert items_of("2019; 2018; .") == ["2019", "2018"]
    assert items_of("a;b") == ["a;b"]  # no space: one item (a report's own punctuation)


def test_a_list_longer_than_asked_fails_and_no_statement_judges_nothing() -> None:
    verdict = over_listed("$1,017; $8 million; 0.06%; 0.03%", 1, "exec-1")
    assert verdict is not None and not verdict.passed and verdict.candidate == "exec-1"
    assert "lists 4 items where the goal asks for 1" in verdict.what
    assert over_listed("$0.9 million; $0.6 million", 2) is None
    assert over_listed("$0.9 million; $0.6 million", 0) is None
    assert over_listed("$492 million", 1) is None
