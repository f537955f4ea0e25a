"""The years of a row a question compares: the highest or lowest, those past a figure the
question gives (in the table's scale), and how many they are — and nothing when the
comparison has no direction, no one answer, or no row the question names in full."""

from __future__ import annotations

import pytest

from roles.reports.cells import from_table
from roles.reports.compared import Compared, compared

TABLE = """| (in thousands) | 2019 | 2018 | 2017 |
|---|---|---|---|
| Net income | 31,000 | 28,000 | 35,000 |
| Gross margin (%) | 40.0 | 40.0 | 38.0 |
"""
REPORT = {"r/table.md": TABLE}


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("In which year was net income higher, 2018 or 2019?", "2019"),
        ("Which year had the lowest net income?", "2018"),
        ("In which year was net income the highest?", "2017"),
        ("In which year was net income less than 30,000 thousand?", "2018"),
        ("In which year was net income more than $30 million?", "2019 and 2017"),
        ("How many years did net income exceed $30,000 thousand?", "2"),
        ("From 2017 to 2019, how many of the years was net income more than 27 million?", "3"),
        ("How many years did net income exceed $40,000 thousand?", "0"),
        ("Which years did net income exceed $30,000 thousand?", "2019 and 2017"),
        ("In which years was net income less than 30 million?", "2018"),
    ],
)
def test_the_years_a_comparison_picks_are_read_from_the_rows_figures(
    question: str, answer: str
) -> None:
    found = compared(question, REPORT)
    assert found is not None and found.answer() == answer


def test_how_it_was_compared_is_shown() -> None:
    found = compared("In which year was net income less than 30,000 thousand?", REPORT)
    assert found is not None
    shown = "compared 'Net income' (2017: 35,000, 2018: 28,000, 2019: 31,000): below 30,000 = 2018"
    assert found.shown() == shown


@pytest.mark.parametrize(
    "question",
    [
        "Which year had the higher gross margin, 2019 or 2018?",  # alike: no one answer
        "In which year was net income reported?",  # no direction
        "In which year was income higher?",  # "net" unsaid
        "How many years did net income rise?",  # no figure to count past
        "What was the net income in 2019?",  # no comparison
    ],
)
def test_nothing_is_compared_without_one_answer(question: str) -> None:
    assert compared(question, REPORT) is None


def test_code_answers_a_comparison_before_reading_or_working() -> None:
    found = from_table("In which year was gross margin the lowest?", REPORT)
    assert isinstance(found, Compared) and found.answer() == "2017"
