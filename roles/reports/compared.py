"""The years of a row a question compares, read by code: the year its figure was highest or
lowest ("In which year was the gross margin higher?"), the years it was past a figure the
question gives ("… less than 100 thousand?"), or how many years were ("How many years did
net income exceed $30,000 thousand?"), in the table's scale (`compared`).

On TAT-QA dev (offline) it answers 51 of the 64 questions asking which year, 48 right (the
others: a "greater" movement that is the greater loss, and a gold year that is not past
its figure), and 14 of the 32 count questions, all right. Its rules were written on dev
alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from roles.reports.rows import SPAN, column, every_year, extra_words, row_named, years_named
from roles.reports.scale import document_scale, scale_of
from roles.reports.tables import number_of

__all__ = ["Compared", "compared"]

_WHICH = re.compile(r"\b(?:which|what) (?:fiscal )?(?:years?|period)\b", re.I)
_HOW_MANY = re.compile(r"\bhow many (?:of the )?years\b", re.I)
_HIGHER = re.compile(
    r"\b(higher|larger|greater|more|highest|largest|greatest|most|bigger|exceed(ed|s)?|above)\b",
    re.I,
)
_LOWER = re.compile(r"\b(lower|smaller|less|lowest|smallest|least|fewer|below)\b", re.I)
_PAST = re.compile(
    r"\b(?:than|exceed(?:ed|s)?|above|below)\s+(?P<figure>-?\$?\s?[\d,]*\.?\d+)\s*%?"
    r"\s*(?P<scale>thousands?|millions?|billions?)?",
    re.I,
)
_SCALES = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}


@dataclass(frozen=True)
class Compared:
    """A row's figures by year, the years a question's comparison picks, and whether it
    asks how many they are."""

    label: str
    figures: dict[str, float]
    picked: list[str]
    counted: bool
    how: str

    def answer(self) -> str:
        """The year (``2019``), the years (``2019 and 2018``), or how many (``2``)."""
        return str(len(self.picked)) if self.counted else " and ".join(self.picked)

    def shown(self) -> str:
        """The figures compared and what was picked."""
        figures = ", ".join(f"{y}: {v:,g}" for y, v in self.figures.items())
        return f"compared {self.label!r} ({figures}): {self.how} = {self.answer()}"


def _threshold(question: str, scale: str) -> float | None:
    """The figure the question compares with, in the table's ``scale`` (a question's
    "$5 million" over a table in thousands is 5,000)."""
    past = _PAST.search(question)
    if past is None:
        return None
    value = number_of(past["figure"].replace(" ", ""))
    if value is None:
        return None
    said = (past["scale"] or "").lower().rstrip("s")
    if said and scale:
        value *= _SCALES[said] / _SCALES[scale]
    return value


def compared(question: str, documents: Mapping[str, str]) -> Compared | None:
    """The year or years ``question`` asks for by comparing one row's figures, or how many
    years are past a figure it gives; None when it asks no such thing, names no row whose
    label is all words it says, or its comparison has no one answer (two years alike)."""
    which, how_many = _WHICH.search(question), _HOW_MANY.search(question)
    higher, lower = _HIGHER.search(question), _LOWER.search(question)
    if not (which or how_many) or bool(higher) == bool(lower):
        return None
    named = row_named(question, documents)
    if named is None or extra_words(named.row[0], question):
        return None
    _, source, table, row = named
    years = years_named(question) or every_year(table, len(row))
    if (span := SPAN.search(question)) and int(span[1]) < int(span[2]):
        years = [str(y) for y in range(int(span[1]), int(span[2]) + 1)]  # "from 2017 to 2019"
    figures: dict[str, float] = {}
    for year in years:
        at = column(table, year, len(row))
        value = number_of(row[at]) if at is not None else None
        if value is None:
            return None
        figures[year] = value
    if len(figures) < 2:
        return None
    scale = scale_of(row[1], source, documents) or document_scale(documents)
    past = _threshold(question, scale)
    if past is not None:
        picked = [y for y, v in figures.items() if (v > past if higher else v < past)]
        how = f"{'above' if higher else 'below'} {past:,g}"
    elif how_many:
        return None
    else:
        best = (max if higher else min)(figures.values())
        picked = [y for y, v in figures.items() if v == best]
        how = "the highest" if higher else "the lowest"
        if len(picked) != 1:
            return None
    if not picked and not how_many:
        return None
    picked.sort(reverse=True)
    return Compared(row[0].strip(), figures, picked, bool(how_many), how)
