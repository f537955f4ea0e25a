"""The arithmetic a question asks of a report's table, worked by code: the operation by the
question's words, the row by its words, the columns by its years, the scale by the table or
the text — and nothing when the row or the columns are not clear."""

from __future__ import annotations

import pytest

from roles.reports.formulas import operation_of, worked

TABLE = """| (in thousands) | 2019 | 2018 | 2017 |
|---|---|---|---|
| Revenue | $1,234 | $1,000 | $900 |
| Cost of revenue | (600) | (500) | (450) |
| Gross margin % | 51.4% | 50.0% | 50.0% |
| Employee severance costs | 10 | 5 | — |
"""
REPORT = {"r/table.md": TABLE, "r/paragraphs.md": "Revenue grew because of demand."}


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("What was the percentage change in revenue between 2018 and 2019?", "percent change"),
        (
            "What is the percentage increase / (decrease) in revenue from 2018 to 2019?",
            "percent change",
        ),
        ("What was the change in the average life expectancy from 2018 to 2019?", "change"),
        ("What is the average revenue for 2018 and 2019?", "average"),
        ("What is the company's average revenue for 2018 and 2019?", "average"),
        ("What was the change in weighted average shares from 2018 to 2019?", "change"),
        ("What is the increase/ (decrease) in revenue from 2018 to 2019?", "change"),
        ("What is the total revenue in 2018 and 2019?", "sum"),
        ("What is revenue as a percentage of total assets in 2019?", None),
        ("Between 2018 and 2019, which year had higher total revenue?", None),
        ("What was the total revenue in 2019 and 2018 respectively?", None),
        ("Why did revenue increase from 2018 to 2019?", None),
        ("How is the average revenue per user calculated?", None),
        ("What was the increase in revenue from 2018 to 2019 driven by?", None),
        ("What was the decrease in cost of revenue in 2019 due to?", None),
        ("What was revenue in 2019?", None),
    ],
)
def test_the_operation_is_read_from_the_questions_words(question: str, operation: str) -> None:
    assert operation_of(question) == operation


def test_a_percentage_change_is_worked_later_over_earlier_with_the_cells_shown() -> None:
    found = worked("What was the percentage change in revenue between 2018 and 2019?", REPORT)
    assert found is not None and found.answer() == "23.40%"
    assert found.label == "Revenue" and [c for c, _ in found.cells] == ["2018", "2019"]
    shown = "percent change of 'Revenue' (2018, 2019): ($1,234 - $1,000) / $1,000 × 100 = 23.40%"
    assert found.shown() == shown


def test_a_change_is_later_minus_earlier_whatever_order_the_question_gives() -> None:
    for asked in ("from 2018 to 2019", "from 2019 to 2018", "between 2019 and 2018"):
        found = worked(f"What was the change in cost of revenue {asked}?", REPORT)
        assert found is not None and found.answer() == "-100 thousand"  # (600) after (500)
    fell = worked("How much did the cost of revenue decrease by from 2018 to 2019?", REPORT)
    assert fell is not None and fell.value == 100


def test_an_average_over_a_span_of_years_takes_every_year_in_it() -> None:
    found = worked("What was the average revenue for 2017-2019?", REPORT)
    assert found is not None and found.answer() == "1,044.67 thousand"
    assert [c for c, _ in found.cells] == ["2017", "2018", "2019"]
    two = worked("What is the average revenue for 2018 and 2019?", REPORT)
    assert two is not None and two.answer() == "1,117 thousand"


def test_a_dash_is_nothing_and_a_change_of_percentages_stays_in_percent() -> None:
    found = worked("What is the total employee severance costs from 2017 to 2019?", REPORT)
    assert found is not None and found.answer() == "15 thousand"
    points = worked("What was the change in gross margin % from 2018 to 2019?", REPORT)
    assert points is not None and points.answer() == "1.40%"


def test_the_scale_the_text_states_is_taken_when_the_table_states_none() -> None:
    table = TABLE.replace("(in thousands)", "")
    stated = {"r/table.md": table, "r/paragraphs.md": "All amounts are in millions."}
    found = worked("What is the total revenue in 2018 and 2019?", stated)
    assert found is not None and found.answer() == "2,234 million"
    bare = worked("What is the total revenue in 2018 and 2019?", {"r/table.md": table})
    assert bare is not None and bare.answer() == "2,234"


def test_nothing_is_worked_when_two_rows_match_alike_or_a_year_has_no_column() -> None:
    twice = TABLE + "| Revenue | $2 | $1 | $0 |\n"
    assert worked("What was the change in revenue from 2018 to 2019?", {"t.md": twice}) is None
    assert worked("What was the change in revenue from 2015 to 2019?", REPORT) is None
    assert worked("What was the change in goodwill from 2018 to 2019?", REPORT) is None
    assert worked("What was the change in revenue in 2019?", REPORT) is None


FISCAL = """|  | FY19 | FY18 | FY17 |
|---|---|---|---|
| Product | 39,005 | 36,709 | 35,000 |
| Percentage of revenue | 75% | 74% | 73% |
| ROFE (%) | 15.2 | 17.1 | 16.0 |
| Other | 95 | 82 | 80 |
| Total other | 195 | 182 | 180 |
"""
FISCAL_REPORT = {"f/table.md": FISCAL}


def test_a_short_fiscal_year_names_its_column() -> None:
    found = worked("What was the change in product revenue between FY18 and FY19?", FISCAL_REPORT)
    assert found is not None and found.value == 2296
    assert [c for c, _ in found.cells] == ["FY18", "FY19"]
    short = worked("What was the change in product revenue between F18 and F19?", FISCAL_REPORT)
    assert short is not None and short.value == 2296


def test_an_average_that_names_no_year_is_over_every_years_column() -> None:
    found = worked("What is the average Cost of revenue?", REPORT)
    assert found is not None and found.answer() == "-516.67 thousand"
    assert [c for c, _ in found.cells] == ["2017", "2018", "2019"]
    assert worked("What is the change in Cost of revenue?", REPORT) is None


TWO_YEARS = """| $ million | 2019 | 2018 | Change (%) |
|---|---|---|---|
| Closing cash | 183.2 | 121.6 | 50.7 |
| Free cash flow | 100.1 | 50.9 | 96.7 |
"""
TWO_YEARS_REPORT = {"c/table.md": TWO_YEARS}


def test_a_change_that_names_no_year_is_over_a_tables_two_years_only() -> None:
    found = worked("What was the change in closing cash?", TWO_YEARS_REPORT)
    assert found is not None and found.answer() == "61.60 million"
    assert [c for c, _ in found.cells] == ["2018", "2019"]
    percent = worked("What was the percentage change in closing cash?", TWO_YEARS_REPORT)
    assert percent is not None and percent.answer() == "50.66%"
    for question in (
        "What was the reason for the increase in closing cash?",
        "What was the change in closing cash and free cash flow?",
    ):
        assert worked(question, TWO_YEARS_REPORT) is None, question


def test_a_years_average_is_the_mean_of_its_figure_and_the_year_befores() -> None:
    found = worked("What is the 2019 average free cash flow?", TWO_YEARS_REPORT)
    assert found is not None and found.answer() == "75.50 million"
    assert [c for c, _ in found.cells] == ["2018", "2019"]
    earlier = worked("What is the 2018 average cost of revenue?", REPORT)
    assert earlier is not None and earlier.answer() == "-475 thousand"


def test_a_row_labelled_in_percent_is_worked_in_percent() -> None:
    found = worked("What is the average ROFE for F19 and F18?", FISCAL_REPORT)
    assert found is not None and found.answer() == "16.15%"
    headed = FISCAL.replace("| FY19 | FY18 | FY17 |", "| FY19 % | FY18 % | FY17 % |")
    other = worked("What is the average other for F19 and F18?", {"f.md": headed})
    assert other is not None and other.answer() == "88.50%"


def test_a_difference_is_the_larger_less_the_smaller_and_a_change_keeps_its_sign() -> None:
    found = worked("What is the difference in cost of revenue between 2018 and 2019?", REPORT)
    assert found is not None and found.value == 100
    assert found.shown().endswith("(500) - (600) = 100 thousand")
    change = worked("What is the change in cost of revenue between 2018 and 2019?", REPORT)
    assert change is not None and change.value == -100


def test_label_words_the_question_does_not_say_count_against_the_row() -> None:
    found = worked("What was the change in product revenue between FY18 and FY19?", FISCAL_REPORT)
    assert found is not None and found.label == "Product"  # not "Percentage of revenue"
    total = worked("What was the change in total other between FY18 and FY19?", FISCAL_REPORT)
    assert total is not None and total.label == "Total other"
    other = worked("What was the change in other between FY18 and FY19?", FISCAL_REPORT)
    assert other is not None and other.label == "Other"


FEES = """|  | 2019 | 2018 |
|---|---|---|
| Audit fees | $55,000 | $58,000 |
| Non-audit fees | 11,000 | 8,000 |
| Total fees | $66,000 | $66,000 |
"""
FEES_REPORT = {"fees.md": FEES}


@pytest.mark.parametrize(
    "question",
    [
        "What is the percentage of audit fees in total fees in 2019?",
        "What is audit fees as a percentage of total fees in 2019?",
        "What was the audit fees as a proportion of the total fees for 2019?",
        "What percentage of total fees were audit fees in 2019?",
    ],
)
def test_a_share_of_a_total_divides_the_rows_each_part_of_the_question_names(
    question: str,
) -> None:
    found = worked(question, FEES_REPORT)
    assert found is not None and found.answer() == "83.33%"
    assert found.label == "Audit fees / Total fees"
    assert found.shown().endswith("$55,000 / $66,000 × 100 = 83.33%")


def test_a_ratio_of_two_rows_is_a_bare_quotient_and_a_share_needs_one_year() -> None:
    found = worked("What is the ratio of audit fees to non-audit fees in 2018?", FEES_REPORT)
    assert found is not None and found.answer() == "7.25"
    assert worked("What is audit fees as a percentage of total fees?", FEES_REPORT) is None
    both = "What is audit fees as a percentage of total fees in 2018 and 2019?"
    assert worked(both, FEES_REPORT) is None
    assert worked("What is audit fees as a percentage of audit fees in 2019?", FEES_REPORT) is None


def test_a_share_over_any_row_and_of_two_rows_named_apart() -> None:
    over = worked("What is the proportion of non-audit fees over audit fees in 2019?", FEES_REPORT)
    assert over is not None and over.answer() == "20.00%"
    both = "What is the proportion of the sum of audit fees and non-audit fees over total fees in 2019?"
    found = worked(both, FEES_REPORT)
    assert found is not None and found.answer() == "100.00%"
    assert found.label == "Audit fees + Non-audit fees / Total fees"
    assert found.shown().endswith("$55,000 + 11,000 / $66,000 × 100 = 100.00%")
    made = worked("What proportion of total fees in 2018 is made up of audit fees?", FEES_REPORT)
    assert made is not None and made.answer() == "87.88%"
