"""Grounding: whether a quoted value stands in the documents where the quote says — checked
by code, so no model can fake it. A number matches however it is written ("1,234", "$1234",
"(1,234)" for a negative, "12.5%"); words match ignoring case, spacing and end punctuation.
A table quote names its row and column, matched loosely (rapidfuzz) to the table's labels."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from bus.evidence import Quote
from bus.verdicts import CheckVerdict

__all__ = ["Table", "ground", "grounding_verdict", "holds", "number_of", "tables"]

LABEL_MATCH = 80.0
"""rapidfuzz WRatio at or above which a quoted row or column names a table's label."""
_NUMBER = re.compile(r"\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?|\(?-?\$?\s?\.\d+\)?%?")


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


def _numbers(text: str) -> list[float]:
    found = (number_of(m.group()) for m in _NUMBER.finditer(text))
    return [n for n in found if n is not None]


def _words(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .,;:\"'")


def holds(text: str, quote: str) -> bool:
    """Whether ``text`` holds the quoted value: the same number (its sign as written, or
    its magnitude), or the same words."""
    n = number_of(quote)
    if n is not None:
        return any(math.isclose(abs(n), abs(m), rel_tol=1e-9, abs_tol=1e-9) for m in _numbers(text))
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
    column "2019"; a report's tables often head their columns in two rows)."""
    first = next(
        (i for i, r in enumerate(rows) if r and r[0].strip() and any(_is_value(c) for c in r[1:])),
        1,
    )
    first = max(first, 1)
    width = max(len(r) for r in rows)
    header = [
        " ".join(r[c].strip() for r in rows[:first] if c < len(r) and r[c].strip())
        for c in range(width)
    ]
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


def _best(label: str, choices: list[str]) -> int | None:
    """The index of the choice ``label`` names, if one is close enough."""
    if not label.strip() or not choices:
        return None
    hit = process.extractOne(label, choices, scorer=fuzz.WRatio, score_cutoff=LABEL_MATCH)
    return None if hit is None else int(hit[2])


def _in_table(quote: Quote, table: Table) -> tuple[bool, str]:
    """Whether the quote stands in ``table`` at its row and column; else what stands there."""
    r = _best(quote.row, [row[0] if row else "" for row in table.rows]) if quote.row else None
    c = _best(quote.column, table.header) if quote.column else None
    if quote.row and r is None:
        return False, f"no row of the table is {quote.row!r}"
    if quote.column and c is None:
        return False, f"no column of the table is {quote.column!r}"
    if r is None and c is not None and holds(table.header[c], quote.text):
        return True, ""  # a heading: the column's, or the table's scale ("$ in millions")
    rows = [table.rows[r]] if r is not None else table.rows
    for row in rows:
        cells = [row[c]] if c is not None and c < len(row) else ([] if c is not None else row)
        if any(holds(cell, quote.text) for cell in cells):
            return True, ""
    if r is not None and c is not None and c < len(table.rows[r]):
        return False, f"row {quote.row!r}, column {quote.column!r} holds {table.rows[r][c]!r}"
    return False, f"{quote.text!r} is not in that row or column"


def ground(quote: Quote, documents: Mapping[str, str]) -> str | None:
    """What is wrong with ``quote`` (None: it stands in the documents where it says). A quote
    whose source is not one of the documents is looked for in all of them."""
    named = {quote.source: documents[quote.source]} if quote.source in documents else {}
    where = named or dict(documents)
    in_tables = any(tables(text) for text in where.values())
    if (quote.row or quote.column) and in_tables:
        said = ""
        for text in where.values():
            for table in tables(text):
                ok, said = _in_table(quote, table)
                if ok:
                    return None
        if said:
            return f"{quote.text!r} at {quote.row or '?'} / {quote.column or '?'}: {said}"
    elif any(holds(text, quote.text) for text in where.values()):
        return None  # a paragraph's quote (any row or column it names has no table to be in)
    place = f"in {quote.source}" if named else "in the documents"
    return f"{quote.text!r} does not stand {place}"


def grounding_verdict(
    quotes: Iterable[Quote], documents: Mapping[str, str], candidate: str
) -> CheckVerdict | None:
    """The grounding check of a result's quotes (None when it quotes nothing)."""
    quoted = list(quotes)
    if not quoted:
        return None
    problems = [p for q in quoted if (p := ground(q, documents)) is not None]
    what = (
        f"every quoted value stands in the documents ({len(quoted)} quoted)"
        if not problems
        else "quotes that do not stand in the documents: " + "; ".join(problems[:4])
    )
    return CheckVerdict(
        kind="grounding", what=what, candidate=candidate, passed=not problems, independent=False
    )
