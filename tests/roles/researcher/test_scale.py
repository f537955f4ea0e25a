"""A figure quoted from a table carries its table's scale, read from the header rows; a
figure with no table scale, a percentage, or words are left as quoted."""

from __future__ import annotations

import pytest

from roles.researcher.scale import scale_of, with_scale

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
