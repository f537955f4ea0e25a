"""A figure quoted from a table, with its table's scale: a report heads its tables "(in
millions)", "$ in thousands" or "€m", and a cell's "1,887.8" means 1,887.8 million. A
quotation that answers with the cell alone states another number than the report does, and
so does an amount computed from such cells (`in_scale`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from roles.reports.tables import figures_in, holds, number_of, tables

__all__ = ["SCALE_WORDS", "document_scale", "in_scale", "scale_of", "with_scale"]

SCALE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("thousand", re.compile(r"\bthousands?\b|['’‘]000\b|\b000s\b", re.I)),
    (
        "million",
        re.compile(
            r"\bmillions?\b|[$€£]\s?m\b|(?-i:\b(?:USD|EUR|GBP|DKK|RMB|AUD|CAD|CHF|SEK|NOK|HKD|SGD)\s?m)\b|\bmn\b",
            re.I,
        ),
    ),
    ("billion", re.compile(r"\bbillions?\b|[$€£]\s?bn?\b", re.I)),
)
"""Each scale and how a table's heading writes it."""


def _scale_in(text: str) -> str:
    found = {word for word, pattern in SCALE_WORDS if pattern.search(text)}
    return found.pop() if len(found) == 1 else ""


def scale_of(figure: str, source: str, documents: Mapping[str, str]) -> str:
    """The scale word of the table in ``source`` (any document when it is not one) whose rows
    hold ``figure``, read from its header rows; "" when none, or more than one, is said."""
    named = {source: documents[source]} if source in documents else dict(documents)
    for text in named.values():
        for table in tables(text):
            if any(holds(cell, figure) for row in table.rows for cell in row[1:]):
                return _scale_in(" ".join(table.header))
    return ""


def with_scale(quoted: str, sources: list[str], documents: Mapping[str, str]) -> str:
    """``quoted`` with its table's scale when it is a bare figure (no scale word of its own,
    not a percentage) that stands in a table of ``sources``, or, when no table states a
    scale, the one the text states (`document_scale`: on TAT-QA dev a table's figure read by
    code was right on 42 of 141 span questions bare and 106 with it); else ``quoted``."""
    figure = quoted.strip()
    if number_of(figure) is None or figure.endswith("%"):
        return quoted
    for source in sources:
        scale = scale_of(figure, source, documents)
        if scale:
            return f"{figure} {scale}"
    in_table = any(
        holds(cell, figure)
        for text in documents.values()
        for table in tables(text)
        for row in table.rows
        for cell in row[1:]
    )
    if in_table and not _table_scales(documents) and (stated := document_scale(documents)):
        return f"{figure} {stated}"
    return quoted


_STATED = re.compile(r"\bin\s+(thousand|million|billion)s\b", re.I)
"""A scale the text states for its figures ("Amounts are in thousands")."""


def _table_scales(documents: Mapping[str, str]) -> set[str]:
    """The scale words the documents' tables state in their headers."""
    found = {_scale_in(" ".join(t.header)) for text in documents.values() for t in tables(text)}
    found.discard("")
    return found


def document_scale(documents: Mapping[str, str]) -> str:
    """The one scale word the documents' tables give their figures, else the one their text
    states ("in thousands": on TAT-QA dev, 116 arithmetic answers take the scale their
    report's text states and their table does not, 6 take none); "" when none or several."""
    found = _table_scales(documents)
    if not found:
        found = {m.group(1).lower() for text in documents.values() for m in _STATED.finditer(text)}
    return found.pop() if len(found) == 1 else ""


def _is_year(text: str, value: float) -> bool:
    return text.strip().isdigit() and 1900 <= value <= 2100


def in_scale(answer: str, goal: str, documents: Mapping[str, str]) -> str:
    """An amount computed from the documents' figures, with their tables' scale: when the
    answer states one figure of its own (not a year, not a number of the goal, not followed
    by a unit of its own: "16 years") and no scale or percent, the one scale of the
    documents' tables goes after it ("€232,328.50" of two
    "€m" figures is 232,328.50 million); else ``answer`` as it is."""
    scale = document_scale(documents)
    if not scale or "%" in answer or any(p.search(answer) for _, p in SCALE_WORDS):
        return answer
    given = {n for _, _, n in figures_in(goal)}
    own = [
        (start, end)
        for start, end, n in figures_in(answer)
        if n not in given and not _is_year(answer[start:end], n)
    ]
    if len(own) != 1:
        return answer
    end = own[0][1]
    unit = _UNIT.match(answer[end:])
    if unit and unit.group(1).lower() not in _NOT_UNITS:
        return answer  # "16 years", "1,027 employees": a count of its own unit, not money
    return f"{answer[:end]} {scale}{answer[end:]}"


_UNIT = re.compile(r"\s+([A-Za-z]+)")
_NOT_UNITS = frozenset(
    {"in", "on", "at", "for", "from", "to", "of", "and", "or", "by", "as", "over", "the", "than"}
)
"""Words that may follow an amount without being its unit ("€232 in 2019")."""
