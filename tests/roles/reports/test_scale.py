"""A figure quoted from a table carries its table's scale, read from the header rows; a
figure with no table scale, a percentage, or words are left as quoted."""

from __future__ import annotations

import pytest

from roles.reports.scale import document_scale, in_scale, scale_of, with_scale

MILLIONS = """|  | Year Ended December 31, |  |
|---|---|---|
| (in millions) | 2019 | 2018 |
| Net income | $1,887.8 | $1,236.4 |
| Margin | 12.5% | 11.0% |
"""
POUNDS = """|  | 2019 £m | 2018 £m |
|---|---|---|
| Revenue | 532 | 498 |
"""
BARE = """|  | 2019 | 2018 |
|---|---|---|
| Shares | 1,204 | 1,100 |
"""
TWO = """| (in thousands, except millions of units) | 2019 |
|---|---|
| Units | 3,400 |
"""
DOCS = {"table.md": MILLIONS, "pounds.md": POUNDS, "bare.md": BARE, "two.md": TWO}


@pytest.mark.parametrize(
    ("quoted", "source", "expected"),
    [
        ("$1,887.8", "table.md", "$1,887.8 million"),
        ("1,236.4", "table.md", "1,236.4 million"),
        ("532", "pounds.md", "532 million"),
        ("(532)", "", "(532) million"),  # a source it does not name: any document
        ("1,204", "bare.md", "1,204"),  # the table says no scale
        ("3,400", "two.md", "3,400"),  # two scales: which is not for code to guess
        ("12.5%", "table.md", "12.5%"),  # a percentage is its own scale
        ("$164.6 million", "table.md", "$164.6 million"),  # words of its own
        ("strong demand", "table.md", "strong demand"),
        ("999", "table.md", "999"),  # not in the table
    ],
)
def test_a_bare_figure_takes_its_tables_scale(quoted: str, source: str, expected: str) -> None:
    assert with_scale(quoted, [source], DOCS) == expected


def test_the_scale_is_that_of_the_table_holding_the_figure() -> None:
    both = {"report.md": BARE + "\n\nText between.\n\n" + MILLIONS}
    assert scale_of("1,204", "report.md", both) == ""
    assert scale_of("1,887.8", "report.md", both) == "million"


EUROS = """|  | 2019 | 2018 |
|---|---|---|
|  | €m | €m |
| Amounts falling due within one year | 243,424 | 221,233 |
"""
GOAL = "What was the 2019 average of the amounts falling due within one year?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("€232,328.50", "€232,328.50 million"),
        ("The 2019 average is €232,328.50.", "The 2019 average is €232,328.50 million."),
        ("232,328.5 million", "232,328.5 million"),  # a scale of its own
        ("12.5%", "12.5%"),  # a percentage
        (
            "the average of 243,424 and 221,233 is 232,328.5",
            "the average of 243,424 and 221,233 is 232,328.5",
        ),  # several figures of its own: which one is not for code to guess
        ("It rose in 2019", "It rose in 2019"),  # a year is no amount
        ("approximately 16 years", "approximately 16 years"),  # a unit of its own
        ("1,027 employees were let go", "1,027 employees were let go"),
        ("€232,328.50 in 2019", "€232,328.50 million in 2019"),  # "in" is no unit
    ],
)
def test_an_amount_computed_from_a_tables_figures_takes_its_scale(
    answer: str, expected: str
) -> None:
    assert in_scale(answer, GOAL, {"table.md": EUROS, "paragraphs.md": "Words."}) == expected


def test_documents_whose_tables_give_no_scale_or_two_leave_the_amount_bare() -> None:
    assert in_scale("1,204", "How many?", {"bare.md": BARE}) == "1,204"
    assert (
        in_scale("€232,328.50", GOAL, {"t.md": EUROS, "p.md": POUNDS.replace("£m", "£bn")})
        == "€232,328.50"
    )
    assert document_scale({"t.md": EUROS, "p.md": POUNDS}) == "million"


def test_with_no_table_stating_one_the_scale_is_the_one_the_text_states() -> None:
    stated = {"bare.md": BARE, "p.md": "All amounts are in thousands, except per share data."}
    assert document_scale(stated) == "thousand"
    assert in_scale("1,204", "What was the total?", stated) == "1,204 thousand"
    both = {"bare.md": BARE, "p.md": "Sales are in thousands and debt in millions."}
    assert document_scale(both) == ""
    assert document_scale({"t.md": EUROS, "p.md": "in thousands"}) == "million"  # the table's
    broken = {"bare.md": BARE, "p.md": "is\nsummarized\nas\nfollows\n(in\nthousands):"}
    assert document_scale(broken) == "thousand"  # a text broken a word a line


@pytest.mark.parametrize(
    ("heading", "scale"),
    [
        ("30 June 2019 $’000", "thousand"),
        ("2019 $'000", "thousand"),
        ("All figures in USD ‘000", "thousand"),
        ("USDm", "million"),
    ],
)
def test_a_heading_in_thousands_or_a_currencys_millions_gives_the_scale(
    heading: str, scale: str
) -> None:
    table = f"| {heading} | 2019 |\n|---|---|\n| Loans | 828.8 |\n"
    assert scale_of("828.8", "t.md", {"t.md": table}) == scale
    assert scale_of("828.8", "t.md", {"t.md": table.replace(heading, "Usdm")}) == ""


def test_a_quoted_figure_of_a_table_stating_no_scale_takes_the_one_the_text_states() -> None:
    stated = {"bare.md": BARE, "text.md": "All amounts are in thousands."}
    assert with_scale("1,204", ["bare.md"], stated) == "1,204 thousand"
    assert with_scale("999", ["bare.md"], stated) == "999"  # in no table
    assert with_scale("1,204", ["bare.md"], {**stated, "table.md": MILLIONS}) == "1,204"
