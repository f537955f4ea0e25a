"""Whether two computations of a task's outputs agree (pure logic)."""

from __future__ import annotations

import pytest

from roles.verifier.agreement import (
    agree,
    as_fractions,
    disagreements,
    given_in,
    labelled,
    quoted_in,
)
from roles.verifier.values import numbers, numerals


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (319, "319 days"),
        ("There are 319 days from 2024-03-14 to 2025-01-27.", 319),
        (11.954, "11.95"),
        ({"mean": 11.95, "median": 11.5}, {"median": 11.5, "mean": 11.950000001}),
        ("1,229 primes", 1229),
        ("data and model", "The words are: Data, model"),
    ],
)
def test_values_that_state_the_same_thing_agree(a: object, b: object) -> None:
    assert agree(a, b)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (319, -19),
        ("11.95", "11.96"),
        ("102334155", "63245986"),
        ("42", "no number"),
        ("data and model", "train and test"),
    ],
)
def test_values_that_differ_disagree(a: object, b: object) -> None:
    assert not agree(a, b)  # type: ignore[arg-type]


def test_disagreements_name_the_outputs() -> None:
    first = {"days": 319, "weekday": "Monday"}
    assert disagreements(first, {"days": -19, "weekday": "Monday"}) == ["days: 319 vs -19"]
    assert disagreements(first, dict(first)) == []
    assert numerals("from 2024-03-14: 319") == ["2024", "03", "14", "319"]


def test_one_rule_reads_numbers_for_agreement_checks_and_grading() -> None:
    assert numerals("1,234.5 and −3 and +2e3, not H2O or x2") == ["1234.5", "-3", "2e3"]
    assert numbers("1,234.5 and -3 and 2e3") == [1234.5, -3.0, 2000.0]
    assert numbers({"a": [-1, 2.5]}) == [-1.0, 2.5]
    assert numbers("no numbers here") == []


def test_answers_that_share_only_the_goals_numbers_do_not_agree() -> None:
    goal = quoted_in("How many leap years are there from 1900 to 2100 inclusive?")
    counted = "There are 10 leap years from 1900 to 2100 inclusive."
    assert agree(counted, "from 1900 to 2100")  # without the goal, the years look like agreement
    assert not agree(counted, "from 1900 to 2100", goal)
    assert not agree(counted, "49 leap years between 1900 and 2100", goal)
    assert agree(counted, "10", goal)
    assert disagreements({"answer": counted}, {"answer": "1900 2100"}, goal) == [
        f"answer: {counted} vs 1900 2100"
    ]


def test_an_answer_that_is_one_of_the_goals_numbers_is_still_compared() -> None:
    goal = quoted_in("Which is larger, 17 or 23?")
    assert agree("23 is larger", 23, goal)
    assert not agree("23 is larger", "17", goal)


def test_numbers_a_task_is_given_are_not_compared_and_quotes_are() -> None:
    """Two live 1.5B quickstart answers gave the same count, estimate and ratio; one also said
    the goal's limit, the other "close to 1", and they did not agree."""
    given = given_in(
        {
            "limit": 10000,
            "prime_count": 1229,
            "flag": True,
            "statement": "π(x) ~ x / ln(x) for 100",
            "values": {"revenue": 7.5},
            "quoted": 3,
        }
    )
    assert given == frozenset({10000.0, 1229.0})
    goal = quoted_in("Count the primes below the given limit and compare with the estimate.")
    one = "The count is 1229\nThe estimate for the primes up to 10000 is 1085.736\nRatio: 1.1320"
    other = "The count is 1229. The estimate is 1085.736 and it is close to 1 by a factor of 1.132."
    assert not agree(one, other, goal)
    assert agree(one, other, goal | given)
    assert not agree(one, other.replace("1085.736", "1085.0"), goal | given)


def test_a_percentage_agrees_with_its_fraction_only_when_asked_to() -> None:
    assert as_fractions("113% close; 5.5 percent, −3 % and 100%") == (
        "1.13 close; 0.055, -0.03 and 1.00"
    )
    assert not agree("ratio 1.1320", "113% close")
    assert agree("ratio 1.1320", "113% close", percent=True)
    assert agree("113.2%", "the ratio is 1.132", percent=True)
    assert not agree("ratio 1.1320", "114% close", percent=True)
    assert not agree("ratio 0.1320", "113% close", percent=True)


def test_numbers_under_a_name_are_read_by_it() -> None:
    assert labelled("Count: 1229, Estimate: 1.13, Ratio: 1085.74") == {
        "count": "1229",
        "estimate": "1.13",
        "ratio": "1085.74",
    }
    assert labelled('{"count": 1229, "ratio": 1.132}') == {"count": "1229", "ratio": "1.132"}
    assert labelled("Computed prime count: 1,229\nCount divided by Estimate: 1.009") == {
        "computed prime count": "1229",
        "count divided by estimate": "1.009",
    }
    # a number with a unit after it, a name given twice, or no name at the start: none
    assert labelled("Cost: 3.5x; x: 1; x: 2; the ratio is 4") == {}


def test_the_same_numbers_under_other_names_disagree() -> None:
    right = "Count: 1229\nEstimate: 1085.7362047581294\nRatio: 1.13"
    swapped = "Count: 1229, Estimate: 1.13, Ratio: 1085.74"
    assert not agree(right, swapped)
    assert not agree('{"count": 1229, "estimate": 1085.736, "ratio": 1.132}', swapped)
    assert agree('{"count": 1229, "estimate": 1085.736, "ratio": 1.132}', right)
    # names one side alone gives are not compared, and unnamed numbers agree as before
    assert agree("Count: 1229, prime estimate: 1085.74", "1229 primes, 1085.74 estimated")
