"""The rows and columns of a report's tables a question names by its words: a row by the
words of its label the question says (`rows_named`, `row_named`), a column by the year its
header gives ("2019", "FY19", "Fiscal 2019"; `column`). What code reads from a table for a
question (`roles.reports.formulas`, `roles.reports.cells`) starts here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from roles.reports.tables import Table, tables

__all__ = [
    "SPAN",
    "YEAR",
    "Named",
    "column",
    "every_year",
    "extra_words",
    "in_percent",
    "row_named",
    "rows_named",
    "unnamed",
    "years_named",
]

YEAR = re.compile(r"(?<![\d.,$])(?:19|20)\d\d\b")
"""A year, "2019", also written on to a word ("FY2019")."""
_SHORT_YEAR = re.compile(r"\bFY?\s?'?(\d\d)\b")
"""A fiscal year written short, "FY19" or "F19": 2019."""
SPAN = re.compile(r"((?:19|20)\d\d)\s*(?:-|–|to|through)\s*((?:19|20)\d\d)")
"""A span of years a question gives ("from 2017 to 2019", "2017-2019")."""
_STOP = frozenset(
    {
        *("what", "is", "the", "was", "of", "in", "a", "an", "and", "to", "from", "for"),
        *("between", "by", "how", "much", "did", "change", "percentage", "average"),
        *("value", "amount", "year", "years", "increase", "decrease", "respective"),
        *("respectively", "fiscal", "were", "are"),
    }
)
"""The question's words that name no row."""
_LABEL_STOP = frozenset(
    {*("of", "the", "a", "an", "and", "in", "to", "from", "for", "by", "on", "at", "as")}
)
"""A row label's words that name nothing: its other words count against it when the
question does not say them ("Percentage of revenue" is not the product revenue)."""


_ASKING = frozenset(
    {
        *("company", "value", "total", "net", "period", "end", "ended", "during", "over"),
        *("within", "acros", "among", "both", "only", "compared", "many", "number", "sum"),
        *("altogether", "annual", "absolute", "difference", "ratio", "proportion", "as", "at"),
        *("on", "with", "that", "this", "these", "those", "it", "its", "their", "all", "each"),
        *("thousand", "million", "billion", "day", "january", "february", "march", "april"),
        *("may", "june", "july", "august", "september", "october", "november", "december"),
    }
)
"""Words of a question that name nothing a table would label: how it asks, when, whose."""


class Named(NamedTuple):
    """A row a question names: how well, the document and table it stands in, its cells."""

    score: float
    source: str
    table: Table
    row: list[str]


_ASIDE = re.compile(r"\((?:see )?notes? [^)]*\)|\(\d+\)|\([a-z]\)|\([ivx]+\)", re.I)
"""An aside of a row's label that names nothing of it: "(see Note 16)", "(1)", "(a)"."""


def _label_words(label: str) -> set[str]:
    return _words(_ASIDE.sub(" ", label), _LABEL_STOP)


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _words(text: str, stop: frozenset[str] = _STOP) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in stop}


def years_named(question: str) -> list[str]:
    """The years ``question`` gives, in order ("FY19" and "F19" are 2019)."""
    short = {f"20{y}" for y in _SHORT_YEAR.findall(question)}
    return sorted(set(YEAR.findall(question)) | short)


def _header_years(header: str) -> set[str]:
    """The years a column's header names, "FY19" and "F19" as 2019."""
    return set(YEAR.findall(header)) | {f"20{y}" for y in _SHORT_YEAR.findall(header)}


def rows_named(question: str, documents: Mapping[str, str]) -> list[Named]:
    """Every labelled row of the documents' tables that shares a word with the question,
    best first: by the question's words it holds, less half of those it holds besides."""
    asked = _words(YEAR.sub(" ", question))
    found = []
    for source, text in documents.items():
        for table in tables(text):
            for row in table.rows:
                label = _label_words(row[0]) if row else set()
                if label & asked:
                    score = len(label & asked) - 0.5 * len(label - asked)
                    found.append(Named(score, source, table, row))
    return sorted(found, key=lambda f: -f.score)


def row_named(question: str, documents: Mapping[str, str]) -> Named | None:
    """The one row ``question`` names best, or None (none, or two with other cells alike)."""
    rows = rows_named(question, documents)
    if not rows or any(r.score == rows[0].score and r.row[1:] != rows[0].row[1:] for r in rows[1:]):
        return None
    return rows[0]


def extra_words(label: str, question: str) -> set[str]:
    """The words of a row's label ``question`` does not say."""
    return _label_words(label) - _words(YEAR.sub(" ", question), frozenset())


def column(table: Table, year: str, width: int) -> int | None:
    """The column of ``year``: the first headed by it alone, else the first whose header
    holds it and heads no change or percentage, else the first whose header holds it."""
    headers = list(enumerate(table.header[:width]))
    alone = [i for i, h in headers if i and h.strip() == year]
    held = [i for i, h in headers if i and year in _header_years(h)]
    plain = [i for i in held if not re.search(r"change|%|percent", table.header[i], re.I)]
    found = alone or plain or held
    return found[0] if found else None


def in_percent(label: str, headers: list[str]) -> bool:
    """Whether a row's figures are percentages by its label ("ROFE (%)") or by every header
    of the columns read ("2019 %")."""
    return bool(re.search(r"\(%\)|%$", label.strip())) or all("%" in h for h in headers)


def every_year(table: Table, width: int) -> list[str]:
    """The years the table's columns give figures for (none that heads a change or a
    percentage)."""
    found: set[str] = set()
    for header in table.header[1:width]:
        if not re.search(r"change|%|percent", header, re.I):
            found |= _header_years(header)
    return sorted(found)


def unnamed(question: str, documents: Mapping[str, str]) -> list[str]:
    """The words of ``question`` that no table of the documents says, in its header or its
    cells, less the words that name nothing (how it asks, when, whose; two letters or
    fewer): what it asks of besides the figures a table gives ("the market price per share
    of Prozone", "revenues weight")."""
    said: set[str] = set()
    for text in documents.values():
        for table in tables(text):
            for row in (table.header, *table.rows):
                said |= _words(" ".join(row), frozenset())
    asked = _words(YEAR.sub(" ", question)) - said - _ASKING
    return sorted(w for w in asked if len(w) > 2)
