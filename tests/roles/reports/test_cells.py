"""The figures a question asks to be read from a report's table: the row whose label is all
words the question says, in the years it gives, with the table's scale — and nothing when it
asks for arithmetic, a share, a year or a reason, or no label is all its words."""

from __future__ import annotations

import pytest

from roles.reports.cells import Read, Years, doubted, from_table, read, years_given
from roles.reports.formulas import Worked

TABLE = """| (in thousands) | 2019 | 2018 | 2017 |
|---|---|---|---|
| Revenue | $1,234 | $1,000 | $900 |
| Deferred revenue | 300 | 250 | 200 |
| Gross margin (%) | 51.4 | 50.0 | 50.0 |
"""
REPORT = {"r/table.md": TABLE}


def test_the_cell_of_the_named_row_and_year_is_read_with_its_scale() -> None:
    found = read("What was the revenue in 2019?", REPORT)
    assert found is not None and found.answer() == "$1,234 thousand"
    assert found.shown() == "read from 'Revenue' (2019): $1,234 thousand"
    margin = read("What was the gross margin in FY18?", REPORT)
    assert margin is not None and margin.answer() == "50.0%"  # the label says percent


def test_the_years_a_question_asks_respectively_are_each_read() -> None:
    found = read("What was the deferred revenue in 2019 and 2018 respectively?", REPORT)
    assert found is not None and found.answer() == "250 thousand and 300 thousand"
    total = read("What was the total revenue in 2019 and 2018 respectively?", REPORT)
    assert total is not None and total.label == "Revenue"  # two figures, not their sum


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in revenue from 2018 to 2019?",  # arithmetic: `worked`
        "What is the total revenue in 2018 and 2019?",  # a sum, not two figures
        "What is revenue as a percentage of deferred revenue in 2019?",
        "Which year had the higher revenue, 2019 or 2018?",
        "Why did revenue rise in 2019?",
        "How is revenue recognised in 2019?",
        "What was the revenue?",  # no year
        "What was the cost in 2019?",  # no row it names
        "What was the deferred revenue in 2019 and 2018?",  # a sum as often as two figures
        "What are the factors that caused revenue to rise in 2019?",
        "For 2019, which component contributed the most to revenue?",
        "What was the margin in 2020?",  # no column
    ],
)
def test_nothing_is_read_for_a_question_that_asks_something_else(question: str) -> None:
    assert read(question, REPORT) is None


def test_a_label_with_a_word_the_question_does_not_say_is_not_read() -> None:
    assert read("What was the gross margin in 2019?", REPORT) is not None
    assert read("What was the margin in 2019?", REPORT) is None  # "gross" unsaid


def test_code_answers_arithmetic_first_then_a_read_figure() -> None:
    change = from_table("What was the change in revenue from 2018 to 2019?", REPORT)
    assert isinstance(change, Worked) and change.answer() == "234 thousand"
    cell = from_table("How much was the revenue in 2017?", REPORT)
    assert isinstance(cell, Read) and cell.answer() == "$900 thousand"
    assert from_table("Why did revenue rise?", REPORT) is None


def test_the_years_a_table_gives_answer_which_years_it_gives() -> None:
    found = years_given("Which years does the table provide information for revenue?", REPORT)
    assert found is not None and found.answer() == "2019 and 2018 and 2017"
    assert isinstance(from_table("Which years are shown in the table?", REPORT), Years)
    assert isinstance(from_table("What are the years included in the table?", REPORT), Years)
    for question in (
        "In which years was revenue calculated?",
        "For which years was the amount of revenue recorded in?",
        "What years are reported by the table?",
        "What years does the table include data for?",
    ):
        found = from_table(question, REPORT)
        assert isinstance(found, Years) and found.answer() == "2019 and 2018 and 2017", question
    two = {"a.md": TABLE, "b.md": TABLE.replace("Revenue", "Sales")}
    assert years_given("Which years are shown in the table?", two) is None  # which table?
    assert years_given("Which years had revenue above $950 thousand?", REPORT) is None


def test_a_year_written_on_to_a_word_names_its_column() -> None:
    found = read("What was the amount of revenue in FY2019?", REPORT)
    assert found is not None and found.answer() == "$1,234 thousand"


def test_an_aside_of_a_label_is_no_word_the_question_must_say() -> None:
    noted = TABLE.replace("| Deferred revenue |", "| Deferred revenue (see Note 16) |")
    found = read("What was the deferred revenue in 2018?", {"t.md": noted})
    assert found is not None and found.answer() == "250 thousand"
    footnoted = TABLE.replace("| Deferred revenue |", "| Deferred revenue(1) |")
    assert read("What was the deferred revenue in 2018?", {"t.md": footnoted}) is not None


def test_an_operation_the_rows_label_names_is_read_not_worked() -> None:
    averaged = TABLE + "| Average invested capital | 700 | 735.6 | 690 |\n"
    found = read("What was the average invested capital in 2018?", {"t.md": averaged})
    assert found is not None and found.answer() == "735.6 thousand"
    assert read("What was the average revenue in 2018?", REPORT) is None  # asks an average


def test_nothing_is_answered_of_a_quarter() -> None:
    quarters = TABLE.replace("| Revenue |", "| Revenue in the first quarter |")
    report = {"q/table.md": quarters}
    assert from_table("What was the revenue in the first quarter of 2019?", report) is None
    assert from_table("What was the change in Q4 revenue from 2018 to 2019?", REPORT) is None
    assert from_table("What was the revenue in 2019?", REPORT) is not None


def test_a_figure_found_for_words_no_table_says_is_in_doubt() -> None:
    question = "What was the revenue per share of the Prozone subsidiary in 2019?"
    found = from_table(question, REPORT)
    assert isinstance(found, Read)  # the row and year are found, for another question
    assert doubted(question, REPORT, found) == ["per", "prozone", "share", "subsidiary"]
    plain = "What was the company's revenue in the period ended December 31, 2019?"
    found = from_table(plain, REPORT)
    assert found is not None and doubted(plain, REPORT, found) == []  # how it asks, when
    which = "Which years does the table provide information for the revenue per share?"
    found = from_table(which, REPORT)
    assert isinstance(found, Years) and doubted(which, REPORT, found) == []  # its own words
