"""A figure quoted from a table, with its table's scale: a report heads its tables "(in
millions)", "$ in thousands" or "€m", and a cell's "1,887.8" means 1,887.8 million. A
quotation that answers with the cell alone states another number than the report does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from roles.researcher.grounding import holds, number_of, tables

__all__ = ["SCALE_WORDS", "scale_of", "with_scale"]

SCALE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("thousand", re.compile(r"\bthousands?\b|'000\b|\b000s\b", re.I)),
    ("million", re.compile(r"\bmillions?\b|[$€£]\s?m\b|\bmn\b", re.I)),
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
    not a percentage) that stands in a table of ``sources``; else ``quoted`` as it is."""
    figure = quoted.strip()
    if number_of(figure) is None or figure.endswith("%"):
        return quoted
    for source in sources:
        scale = scale_of(figure, source, documents)
        if scale:
            return f"{figure} {scale}"
    return quoted
