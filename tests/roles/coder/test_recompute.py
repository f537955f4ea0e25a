"""A worked answer's arithmetic done again by code: a result wrong at the decimals it states
is corrected, in the equations after it and in the final value; right working, rounding, a
percentage of an amount and anything that is not arithmetic are left as written."""

from __future__ import annotations

import pytest

from roles.coder.prose import RECOMPUTED, worked
from roles.coder.recompute import recomputed

pytestmark = pytest.mark.timeout(30)

# As 1.5B wrote it on TAT-QA dev: the right figures, then a wrong division carried on.
SHARES = """Step 3: We divide the first month's shares by the total:
\\[ \\frac{262}{7,250} = 0.0368 \\]
Step 4: To convert this ratio to a percentage, we multiply by 100:
\\[ 0.0368 \\times 100 = 3.68\\% \\]
Therefore, the first month's shares are \\(\\boxed{3.68\\%}\\) of the total."""


def test_a_wrong_result_is_corrected_and_carried_into_the_final_value() -> None:
    value, fixes = recomputed(SHARES, "3.68%")
    assert value == "3.61%"
    assert [f.claimed for f in fixes] == ["3.68"]
    assert worked(SHARES).outputs == {"answer": "3.61%"}


def test_what_was_corrected_is_the_candidates_file() -> None:
    shown = worked(SHARES).files[RECOMPUTED].decode()
    assert "3.61, not 3.68" in shown


@pytest.mark.parametrize(
    ("reply", "value", "expected"),
    [
        # one chain, a percentage of a fraction, the sum with thousands separators
        ("(19,812 - 5,912) / 5,912 × 100 = 230.12%\nAnswer: 230.12%", "230.12%", "235.12%"),
        (
            "15,386 + 14,551 = 29,837\nAnswer: $29,837 thousand",
            "$29,837 thousand",
            "$29,937 thousand",
        ),
        # a whole result stays whole; the wrong operand of a later step is taken at its value
        ("425 / 5 = 80\n80 × 2 = 160\nAnswer: 160", "160", "170"),
        # a whole number cut from the decimals the working gives is not its rounding
        (
            "10000 / 9.2103 = 1085\nAnswer: about 1085 primes",
            "about 1085 primes",
            "about 1085.74 primes",
        ),
        ("1,235,173 / 1,562,474 = 0.7905 = 79.0%\nAnswer: 79.0%", "79.0%", "79.05%"),
    ],
)
def test_wrong_arithmetic_is_recomputed(reply: str, value: str, expected: str) -> None:
    assert recomputed(reply, value)[0] == expected


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        # right, rounded or cut to the decimals it states
        ("1,235,173 / 1,562,474 = 0.7905 = 79.05%\nAnswer: 79.05%", "79.05%"),
        ("\\[ \\frac{22}{7} \\approx 3.14 \\]\nAnswer: 3.14", "3.14"),
        # a percentage of an amount inside a computation is not read (10% × 200 is 20)
        ("10% × 200 = 20\nAnswer: 20", "20"),
        # figures in a list, dates and words are not arithmetic
        ("The years 2018, 2019 = two years\nAnswer: 2", "2"),
        ("From 2018-2019 the total = 500\nAnswer: 500", "500"),
        # a wrong result the final value does not state leaves it as it is
        ("2 + 2 = 5\nAnswer: 7", "7"),
    ],
)
def test_right_working_and_what_is_not_arithmetic_are_left_alone(reply: str, value: str) -> None:
    assert recomputed(reply, value) == (value, [])


def test_a_worked_answer_with_right_arithmetic_writes_no_file() -> None:
    solved = worked("6 × 7 = 42\nAnswer: 42")
    assert solved.outputs == {"answer": "42"}
    assert solved.files == {}
