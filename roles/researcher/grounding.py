"""Grounding: whether a quoted value stands in the documents where the quote says — checked
by code, so no model can fake it. A number matches however it is written ("1,234", "$1234",
"(1,234)" for a negative, "12.5%"); words match ignoring case, spacing and end punctuation.
A table quote names its row and column, matched loosely (rapidfuzz) to the table's labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz, process

from bus.evidence import Quote
from bus.verdicts import CheckVerdict
from roles.reports.tables import Table, holds, number_of, tables

__all__ = ["Table", "ground", "grounding_verdict", "holds", "labels", "number_of", "tables"]

LABEL_MATCH = 80.0
"""rapidfuzz WRatio at or above which a quoted row or column names a table's label."""


def _named(label: str, choices: list[str]) -> list[int]:
    """The indices of the choices ``label`` names best, if any is close enough: all of them
    when several name it equally ("Fiscal Year" heads "Fiscal Year 2019" and "Fiscal Year
    2018" alike)."""
    if not label.strip() or not choices:
        return []
    hits = process.extract(label, choices, scorer=fuzz.WRatio, score_cutoff=LABEL_MATCH, limit=None)
    top = max((score for _, score, _ in hits), default=0.0)
    return [int(i) for _, score, i in hits if score == top]


def _in_table(quote: Quote, table: Table) -> tuple[bool, str]:
    """Whether the quote stands in ``table`` at its row and column; else what stands there."""
    rows = _named(quote.row, [row[0] if row else "" for row in table.rows]) if quote.row else []
    columns = _named(quote.column, table.header) if quote.column else []
    if quote.row and not rows:
        return False, f"no row of the table is {quote.row!r}"
    if quote.column and not columns:
        return False, f"no column of the table is {quote.column!r}"
    if not rows and any(holds(table.header[c], quote.text) for c in columns):
        return True, ""  # a heading: the column's, or the table's scale ("$ in millions")
    for row in [table.rows[r] for r in rows] if rows else table.rows:
        cells = [row[c] for c in columns if c < len(row)] if columns else row
        if any(holds(cell, quote.text) for cell in cells):
            return True, ""
    r, c = (rows or [-1])[0], (columns or [-1])[0]
    if len(rows) == 1 and len(columns) == 1 and c < len(table.rows[r]):
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


def labels(documents: Mapping[str, str], most: int = 24) -> list[str]:
    """The row and column labels of the documents' tables, one line per table, for a model
    that named a row or column no table has (at temperature 0, told only what was wrong, a
    1.5B model answered again word for word)."""
    lines = []
    for name, text in documents.items():
        for table in tables(text):
            rows = [r[0] for r in table.rows if r and r[0].strip()][:most]
            columns = [c for c in table.header[1:] if c.strip()]
            lines.append(
                f"{name}: rows {', '.join(map(repr, rows))}; columns {', '.join(map(repr, columns))}"
            )
    return lines


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
