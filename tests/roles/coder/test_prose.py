"""The prose view's reading of a worked answer: its last Answer: line, else its last boxed
value, LaTeX taken off; none is a failed view, never a made-up value."""

from __future__ import annotations

import pytest

from roles.coder.prose import MARK, final_value, request, worked
from roles.errors import TaskFailed

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("The sum is 44.\nAnswer: mean 4.0000, median 4\n\nThat is all.", "mean 4.0000, median 4"),
        ("Steps...\nAnswer: 12\nlater text\nAnswer: 13", "13"),  # the last one counts
        ("So the day is \\(\\boxed{99}\\).", "99"),  # no Answer: line, a boxed value
        ("Therefore:\n\\[\nAnswer: \\$191.17\n\\]", "$191.17"),
        ("Answer: \\boxed{\\text{Monday}}", "Monday"),
        # no Answer: line and nothing boxed: the last line that concludes
        (
            "1. Apple: 34%\nTherefore, the total is 30%.\nSo the total is **45%.**",
            "So the total is **45%.**",
        ),
    ],
)
def test_the_value_a_worked_answer_ends_on_is_read(reply: str, value: str) -> None:
    assert final_value(reply) == value
    assert worked(reply).outputs == {"answer": value} and worked(reply).view == "prose"


def test_a_worked_answer_that_states_no_value_is_a_failed_view() -> None:
    with pytest.raises(TaskFailed, match="no 'Answer:' line"):
        worked("I think it is probably around a hundred or so.")
    with pytest.raises(TaskFailed):  # a step that only starts with "so" is no conclusion
        worked("Some steps: 34% + 11%\nsome more: 45%")
    with pytest.raises(TaskFailed):  # the instructions' wording echoed, no value
        worked("Answer: <the value>")


def test_the_request_asks_in_words_with_the_goals_values() -> None:
    messages = request("How many days?", "Count the days.", {"start": "2024-03-14"}, {})
    text = str(messages[-1].content)
    assert MARK in text and "2024-03-14" in text and "do not write code" in str(messages[0].content)
