"""The figures a question asks to be read from a report's table, read by code: the cell of
the row it names in the year it gives ("What was the revenue in 2019?"), or the cells of the
years it gives ("… in 2019 and 2018 respectively"), with their table's scale (`read`); and
what code answers from the table at all: a comparison of years, arithmetic, figures read
(`from_table`).

A cell is read only when the question says every word of the row's label: on TAT-QA dev
(offline) a row whose label has a word the question does not say was the wrong row more
often than not. So read, it answers 181 single-figure span questions, 138 right (76 %: most
of the rest are figures the report's text gives, not its table, or a scale its annotators
left off), and 69 multi-span ones, 55 right (80 %). Its rules were written on dev alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from roles.reports.compared import compared
from roles.reports.formulas import Worked, operation_of, worked
from roles.reports.rows import (
    column,
    every_year,
    extra_words,
    in_percent,
    row_named,
    unnamed,
    years_named,
)
from roles.reports.scale import document_scale, scale_of
from roles.reports.tables import number_of, tables

__all__ = ["Answered", "Read", "Years", "doubted", "from_table", "read", "years_given"]

_NOT_READ = re.compile(
    r"\bwhich\b|\bwhy\b|\bhow\b(?! (much|many)\b)|as an? (percentage|proportion)|"
    r"percentage of|proportion of|ratio of|% of|\bthan\b|how many (of the )?years|\bcaus|"
    r"\bfactors?\b|\breasons?\b|\b(most|least|highest|lowest|largest|smallest)\b",
    re.I,
)
"""Words of a question that asks for something else than the figures of a row: a year or a
row by a comparison, a reason, a method, a share, a count of years, the row that is most."""
_RESPECTIVELY = re.compile(r"\brespective(?:ly)?\b", re.I)
"""Several years' figures are read only when asked "respectively": on TAT-QA dev, reading
two years asked otherwise ("What are the capital expenditures in 2018 and 2019?") was right
on 2 of 9, the gold a sum as often as not; asked "respectively", on 52 of 62."""
_WHICH_YEARS = re.compile(
    r"\b(?:which|what(?: (?:are|were) the)?) (?:fiscal )?years\b.*\b(?:table|provided?|"
    r"information|shown?|presented|included?|calculated|recorded|reported)\b",
    re.I,
)
"""A question that asks which years a table gives ("Which years does the table show?", "In
which years was operating income calculated?")."""


class Answered(Protocol):
    """What code answers from a table: the answer as a report states it, and how it was
    found, for a person to check."""

    def answer(self) -> str: ...

    def shown(self) -> str: ...


_QUARTER = re.compile(r"\bquarter|\bQ[1-4]\b", re.I)
"""A question about a quarter: its tables head quarters in as many ways as they are laid out
(a year over four quarters, a quarter's rows under a year, quarters by the date they end),
and code that finds a year's column answered 3 of the 11 such questions on TAT-QA dev right."""


@dataclass(frozen=True)
class Read:
    """The cells (column, figure) of the row labelled ``label`` a question asks for."""

    label: str
    cells: list[tuple[str, str]]
    scale: str
    percent: bool

    def answer(self) -> str:
        """Each figure as the report writes it, with its scale or percent sign, joined by
        "and" (``$1,234 thousand and $1,000 thousand``)."""

        def one(figure: str) -> str:
            if self.percent:
                return figure if figure.endswith("%") else f"{figure}%"
            return f"{figure} {self.scale}".strip()

        return " and ".join(one(f) for _, f in self.cells)

    def shown(self) -> str:
        """Where the figures stand: the row and the columns."""
        columns = ", ".join(c for c, _ in self.cells)
        return f"read from {self.label!r} ({columns}): {self.answer()}"


@dataclass(frozen=True)
class Years:
    """The years a table gives figures for, the answer to "Which years does the table provide
    information for …?" (on TAT-QA dev 23 of 23 such questions, offline)."""

    header: list[str]
    years: list[str]

    def answer(self) -> str:
        """The years, latest first, joined by "and"."""
        return " and ".join(self.years)

    def shown(self) -> str:
        """The header the years were read from."""
        return f"the years of the columns {self.header!r}: {self.answer()}"


def years_given(question: str, documents: Mapping[str, str]) -> Years | None:
    """The years of the table ``question`` asks which years it gives (the one its words
    name a row of, else the documents' only table), or None."""
    if not _WHICH_YEARS.search(question):
        return None
    named = row_named(question, documents)
    found = [named.table] if named else [t for text in documents.values() for t in tables(text)]
    if len(found) != 1:
        return None
    years = sorted(every_year(found[0], len(found[0].header)), reverse=True)
    return Years(found[0].header, years) if len(years) >= 2 else None


def _unlabelled(question: str, label: str) -> str:
    """``question`` less the words of ``label``: what it asks of the row ("What was the
    average invested capital in 2018?" of the row "Average invested capital" asks no
    average)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", label)}
    return re.sub(
        r"[A-Za-z]{2,}", lambda m: " " if m.group().lower() in words else m.group(), question
    )


def read(question: str, documents: Mapping[str, str]) -> Read | None:
    """The figures of the row ``question`` names in the years it gives, or None: it asks
    arithmetic of the row (but the figures of several years "respectively"; an operation its
    label names is none), a share, a year, a reason;
    names no year; or no row's label is all words it says (or two are, with other cells)."""
    years = years_named(question)
    named = row_named(question, documents)
    if _NOT_READ.search(question) or not years or named is None:
        return None
    _, source, table, row = named
    if extra_words(row[0], question):
        return None
    respectively = _RESPECTIVELY.search(question)
    operation = operation_of(_RESPECTIVELY.sub(" ", _unlabelled(question, row[0])))
    several = len(years) > 1 or operation == "sum"
    if operation not in (None, "sum") or (several and not respectively):
        return None
    cells: list[tuple[str, str]] = []
    for year in years:
        at = column(table, year, len(row))
        if at is None or number_of(row[at]) is None:
            return None
        cells.append((table.header[at], row[at].strip()))
    percent = all(f.endswith("%") for _, f in cells) or in_percent(row[0], [c for c, _ in cells])
    scale = "" if percent else scale_of(cells[0][1], source, documents) or document_scale(documents)
    return Read(row[0].strip(), cells, scale, percent)


def from_table(question: str, documents: Mapping[str, str]) -> Answered | None:
    """What code answers ``question`` from the documents' tables: the years a comparison of
    a row picks (`roles.reports.compared`), the years a table gives, the arithmetic it asks
    (`roles.reports.formulas.worked`), else the figures it asks to be read (`read`); nothing
    for a question about a quarter."""
    if _QUARTER.search(question):
        return None
    return (
        compared(question, documents)
        or years_given(question, documents)
        or worked(question, documents)
        or read(question, documents)
    )


def doubted(question: str, documents: Mapping[str, str], found: Answered) -> list[str]:
    """The words of ``question`` no table of the documents says, when ``found`` reads or
    works its figures (`roles.reports.rows.unnamed`; a comparison or the years a table gives
    is found by words of its own): on TAT-QA dev (offline) code was right on 54 of the 88
    such answers (61 %), and on 670 of the 761 others (88 %)."""
    if not isinstance(found, Read | Worked):
        return []
    return unnamed(question, documents)
