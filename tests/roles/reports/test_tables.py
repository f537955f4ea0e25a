"""A report's numbers and tables as code reads them: a comma ends a number unless three
digits follow, and a header label over several columns heads them all."""

from __future__ import annotations

import pytest

from roles.reports.tables import numbers_in, tables

pytestmark = pytest.mark.timeout(30)

SPANNED = """|  |  | Fiscal Year |  |
|---|---|---|---|
|  | 2019 | 2018 | 2017 |
| Apple Inc. | 32% | 36% | 34% |
"""


def test_a_number_followed_by_a_comma_is_still_a_number() -> None:
    text = "as of March 30, 2019, 1,027 employees, and $1,234.5 in (56) cases"
    assert numbers_in(text) == [30.0, 2019.0, 1027.0, 1234.5, -56.0]


def test_one_label_over_several_columns_heads_them_all() -> None:
    (table,) = tables(SPANNED)
    assert table.header == ["", "Fiscal Year 2019", "Fiscal Year 2018", "Fiscal Year 2017"]
    assert table.rows == [["Apple Inc.", "32%", "36%", "34%"]]


def test_labels_over_their_own_columns_stay_their_own() -> None:
    two = "|  | Low | High |\n|---|---|---|\n| 2018 Q1 | $5.99 | $7.20 |\n"
    assert tables(two)[0].header == ["", "Low", "High"]
