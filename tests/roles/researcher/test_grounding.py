"""Grounding, by code: a quoted value stands in the documents where the quote says — however
a report writes the number — and a near miss (another column, another figure, words the
report does not use) fails, saying what stands there."""

from __future__ import annotations

import pytest

from bus.evidence import Quote
from roles.researcher.answer import quoted_values
from roles.researcher.grounding import (
    ground,
    grounding_verdict,
    labels,
    number_of,
    placed,
    tables,
)

pytestmark = pytest.mark.timeout(30)

TABLE = """| ($ in thousands) | | |
|---|---|---|
| | 2019 | 2018 |
| Revenue | $1,234 | $1,000 |
| Net loss | (56) | 12.5% |
| Cost of sales | 700 | 650 |
"""
PARAGRAPHS = "Revenue grew because of strong demand in Asia.\n\nCosts fell.\n"
DOCS = {"table.md": TABLE, "paragraphs.md": PARAGRAPHS}


@pytest.mark.parametrize(
    ("text", "value"),
    [("1,234", 1234.0), ("$1,234", 1234.0), ("(56)", -56.0), ("12.5%", 12.5), ("-3.5", -3.5)],
)
def test_a_number_is_read_however_a_report_writes_it(text: str, value: float) -> None:
    assert number_of(text) == value


def test_words_are_no_number() -> None:
    assert number_of("net sales") is None
    assert number_of("2019 and 2018") is None


def test_a_table_is_read_with_its_header() -> None:
    (table,) = tables(TABLE)
    assert table.header == ["($ in thousands)", "2019", "2018"]  # two header rows, joined
    assert [row[0] for row in table.rows] == ["Revenue", "Net loss", "Cost of sales"]


@pytest.mark.parametrize(
    "quote",
    [
        Quote(text="1,234", source="table.md", row="Revenue", column="2019"),
        Quote(text="1234", source="table.md", row="revenue", column="2019"),
        Quote(text="-56", source="table.md", row="Net loss", column="2019"),
        Quote(text="(56)", row="Net loss", column="2019"),  # no source: every document
        Quote(text="12.5%", source="table.md", row="Net loss", column="2018"),
        Quote(text="strong demand in Asia", source="paragraphs.md"),
        Quote(text="Strong  demand in Asia.", source="paragraphs.md"),
        Quote(text="$ in thousands", source="table.md", column="($ in thousands)"),
        Quote(text="demand in Asia", source="paragraphs.md", row="Revenue", column="2019"),
    ],
)
def test_a_quote_that_stands_where_it_says_is_grounded(quote: Quote) -> None:
    assert ground(quote, DOCS) is None


@pytest.mark.parametrize(
    ("quote", "said"),
    [
        (Quote(text="1,234", source="table.md", row="Revenue", column="2018"), "'$1,000'"),
        (Quote(text="1,243", source="table.md", row="Revenue", column="2019"), "'$1,234'"),
        (Quote(text="700", source="table.md", row="Interest", column="2019"), "no row"),
        (Quote(text="700", source="table.md", row="Cost of sales", column="2020"), "no column"),
        (Quote(text="weak demand in Asia", source="paragraphs.md"), "does not stand"),
        (Quote(text="999", source="table.md"), "does not stand in table.md"),
    ],
)
def test_a_near_miss_is_not_grounded_and_says_what_stands_there(quote: Quote, said: str) -> None:
    problem = ground(quote, DOCS)
    assert problem is not None and said in problem


def test_the_verdict_fails_on_one_quote_that_is_not_there_and_is_never_independent() -> None:
    good = Quote(text="700", row="Cost of sales", column="2019")
    bad = Quote(text="701", row="Cost of sales", column="2019")
    held = grounding_verdict([good], DOCS, "read")
    failed = grounding_verdict([good, bad], DOCS, "read")
    assert held is not None and held.passed and held.kind == "grounding"
    assert failed is not None and not failed.passed and "'701'" in failed.what
    assert not held.independent and not failed.independent
    assert grounding_verdict([], DOCS, "read") is None


def test_quoted_figures_become_numbers_named_by_where_they_stand() -> None:
    quotes = [
        Quote(text="$1,234", row="Revenue", column="2019"),
        Quote(text="(56)", row="Net loss", column="2019"),
        Quote(text="strong demand in Asia", source="paragraphs.md"),
        Quote(text="12.5%", source="paragraphs.md"),
        Quote(text="$1,234", row="Revenue", column="2019"),
    ]
    assert quoted_values(quotes) == {
        "Revenue (2019)": 1234.0,
        "Net loss (2019)": -56.0,
        "paragraphs.md #4": 12.5,
        "Revenue (2019) #5": 1234.0,
    }


SPANNED = """|  |  | Fiscal Year |  |
|---|---|---|---|
|  | 2019 | 2018 | 2017 |
| Apple Inc. (“Apple”) | 32% | 36% | 34% |
| Huawei | 13% | 8% | 11% |
"""


def test_a_column_label_that_heads_several_columns_grounds_in_any_of_them() -> None:
    docs = {"table.md": SPANNED}
    assert (
        ground(
            Quote(source="table.md", row=">> Apple Inc.", column="Fiscal Year", text="34%"), docs
        )
        is None
    )
    wrong = ground(
        Quote(source="table.md", row="Apple Inc.", column="Fiscal Year", text="11%"), docs
    )
    assert wrong is not None and "not in that row or column" in wrong
    assert ground(Quote(source="table.md", row=",", column="2017", text="35%"), docs) is not None


def test_a_label_of_marks_names_no_place_and_the_cell_holding_the_value_names_it() -> None:
    docs = {"table.md": SPANNED}
    quote, wrong = placed(Quote(source="table.md", row=",", column="2017", text="34%"), docs)
    assert wrong is None
    assert (quote.row, quote.column) == ("Apple Inc. (“Apple”)", "Fiscal Year 2017")
    # a row's label given as the column (a section heading as the row) is read as the row
    quote, wrong = placed(
        Quote(source="table.md", row="Fiscal Year", column="Huawei", text="8%"), docs
    )
    assert wrong is None and (quote.row, quote.column) == ("Huawei", "Fiscal Year 2018")
    assert ground(Quote(source="table.md", row="Fiscal Year", column="Huawei", text="36%"), docs)
    # a value in several cells, its place unnamed: it stands, and its labels stay the model's
    assert ground(Quote(source="table.md", row=",", column=">>", text="99%"), docs) is not None
    many = {"table.md": SPANNED.replace("| 13% |", "| 32% |")}
    quote, wrong = placed(Quote(source="table.md", row=",", column="2019", text="32%"), many)
    assert wrong is None and quote.row == ","


def test_a_section_heading_as_the_row_and_the_rows_label_as_the_column_are_read_so() -> None:
    table = """|  | Balances, January 31, 2018 | Additions |
|---|---|---|
| Fiscal 2018 Plan |  |  |
| Employee terminations costs | $53.0 | $39.2 |
| Total | $55.5 | $42.4 |
"""
    docs = {"table.md": table}
    said = Quote(
        source="table.md",
        row=">> Fiscal 2018 Plan",
        column=">> Employee terminations costs",
        text="$53.0",
    )
    quote, wrong = placed(said, docs)
    assert wrong is None
    assert (quote.row, quote.column) == (
        "Employee terminations costs",
        "Balances, January 31, 2018",
    )
    assert ground(said.model_copy(update={"text": "$55.5"}), docs) is not None


def test_a_paragraphs_number_before_a_comma_grounds() -> None:
    docs = {"paragraphs.md": "as of March 30, 2019, or 1,027 employees, and more"}
    assert ground(Quote(source="paragraphs.md", row="", column="", text="1,027"), docs) is None
    assert ground(Quote(source="paragraphs.md", row="", column="", text="2019"), docs) is None


def test_the_tables_labels_are_listed_for_a_second_try() -> None:
    (line,) = labels({"table.md": SPANNED, "paragraphs.md": PARAGRAPHS})
    assert line.startswith(
        "table.md: rows 'Apple Inc. (“Apple”)', 'Huawei'; columns 'Fiscal Year 2019'"
    )


def test_a_year_names_the_long_column_it_stands_in_and_no_other() -> None:
    table = """|  | For the Twelve Months Ended December 31, |  |
|---|---|---|
|  | 2019 | 2018 |
|  | (Dollars in thousands) |  |
| Inventories, net | 12,542 | 9,317 |
| Prepaid expenses | 3,276 | 1,078 |
"""
    docs = {"table.md": table}
    said = Quote(source="table.md", row=">>2019<<", column=">>Inventories, net<<", text="12,542")
    quote, wrong = placed(said, docs)
    assert wrong is None and quote.row == "Inventories, net" and "2019" in quote.column
    assert ground(said.model_copy(update={"text": "9,317"}), docs) is not None  # 2018's
    assert ground(said.model_copy(update={"row": "2017"}), docs) is not None  # no such year
