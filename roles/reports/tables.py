"""A report's text as code reads it: the numbers it writes ("1,234", "$1234", "(1,234)" for
a negative, "12.5%") and its markdown tables, their header rows told from their data rows."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Table", "figures_in", "holds", "number_of", "numbers_in", "tables"]

_NUMBER = re.compile(r"\(?-?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?%?|\(?-?\$?\s?\.\d+\)?%?")
"""A number as a report writes one; a comma ends it unless three digits follow ("2019, and")."""


def number_of(text: str) -> float | None:
    """The number ``text`` is, as a report writes one, or None when it is not one number."""
    t = text.strip().replace("$", "").replace("€", "").replace("£", "").replace(" ", "")
    t = t.rstrip("%")
    negative = t.startswith("(") and t.endswith(")")
    t = t.strip("()")
    if not re.fullmatch(r"-?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?", t) or not any(c.isdigit() for c in t):
        return None
    value = float(t.replace(",", ""))
    return -value if negative else value


def numbers_in(text: str) -> list[float]:
    """Every number ``text`` writes, as a report writes one."""
    return [n for _, _, n in figures_in(text)]


def figures_in(text: str) -> list[tuple[int, int, float]]:
    """Every number ``text`` writes: where it starts and ends, and its value."""
    found = ((m.start(), m.end(), number_of(m.group())) for m in _NUMBER.finditer(text))
    return [(start, end, n) for start, end, n in found if n is not None]


def _words(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .,;:\"'")


def holds(text: str, quote: str) -> bool:
    """Whether ``text`` holds the quoted value: the same number (its sign as written, or
    its magnitude), or the same words."""
    n = number_of(quote)
    if n is not None:
        return any(
            math.isclose(abs(n), abs(m), rel_tol=1e-9, abs_tol=1e-9) for m in numbers_in(text)
        )
    words = _words(quote)
    return bool(words) and words in _words(text)


@dataclass(frozen=True)
class Table:
    """A markdown table: its header cells and its rows of cells."""

    header: list[str]
    rows: list[list[str]]


def _cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def _is_value(cell: str) -> bool:
    """A cell that is a figure (not a year, which heads a column)."""
    n = number_of(cell)
    return n is not None and not (cell.strip().isdigit() and 1900 <= n <= 2100)


def _table(rows: list[list[str]]) -> Table:
    """Header rows are those before the first row that labels figures; a column's header is
    its cells in them, joined ("For the year ended December 31:" over "2019" gives a
    column "2019"; a report's tables often head their columns in two rows). A header row
    with one label over several columns heads them all ("Fiscal Year" over 2019, 2018 and
    2017 stands in one of their cells)."""
    first = next(
        (i for i, r in enumerate(rows) if r and r[0].strip() and any(_is_value(c) for c in r[1:])),
        1,
    )
    first = max(first, 1)
    width = max(len(r) for r in rows)

    def over(r: list[str], c: int) -> str:
        labels = [cell.strip() for cell in r[1:] if cell.strip()]
        if c >= 1 and width > 2 and len(labels) == 1:
            return labels[0]
        return r[c].strip() if c < len(r) else ""

    header = [" ".join(label for r in rows[:first] if (label := over(r, c))) for c in range(width)]
    return Table(header=header, rows=rows[first:])


def tables(text: str) -> list[Table]:
    """The markdown tables in ``text``, their header rows told from their data rows."""
    found: list[Table] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append(line)
            continue
        if block:
            rows = [_cells(b) for b in block if not re.fullmatch(r"\s*\|?[\s:|-]*\|?\s*", b)]
            if rows:
                found.append(_table(rows))
            block = []
    return found
