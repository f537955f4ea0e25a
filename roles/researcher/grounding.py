"""Grounding: whether a quoted value stands in the documents where the quote says — checked
by code, so no model can fake it. A number matches however it is written ("1,234", "$1234",
"(1,234)" for a negative, "12.5%"); words match ignoring case, spacing and end punctuation.
A table quote names its row and column, matched loosely (rapidfuzz) to the table's labels;
where one cell holds it, it is named by that cell's own labels."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz, process

from bus.evidence import Quote
from bus.verdicts import CheckVerdict
from roles.reports.tables import Table, holds, number_of, tables

__all__ = [
    "Table",
    "ground",
    "grounding_check",
    "grounding_verdict",
    "holds",
    "labels",
    "number_of",
    "placed",
    "tables",
]

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
    if hits:
        return [int(i) for _, score, i in hits if score == top]
    return _standing(label, choices)


def _standing(label: str, choices: list[str]) -> list[int]:
    """The choices a label of four characters or more stands in whole: a year names the
    column "For the Twelve Months Ended December 31, 2019 (Dollars in thousands)", which
    WRatio scores 60 (a short string against a long one counts for 0.6 of a partial match)."""
    if len(label.strip()) < 4:
        return []
    whole = re.compile(rf"(?<!\w){re.escape(label.strip())}(?!\w)", re.IGNORECASE)
    return [i for i, choice in enumerate(choices) if whole.search(choice)]


def _clean(label: str) -> str:
    """A label without the marks a model puts around it (">> Apple Inc.", ",")."""
    return re.sub(r"^\W+|\W+$", "", label)


def _axes(quote: Quote, table: Table) -> tuple[list[int] | None, list[int] | None, str]:
    """The rows and columns the quote's labels name (None: any), or what names nothing. A
    label that is only marks names no place; one naming the other axis is read there (a
    small model put the row's label under "column"); the label column is no value's."""
    names = [row[0] if row else "" for row in table.rows]
    rows: list[int] | None = None
    columns: list[int] | None = None
    for label, own, other, axis in (
        (_clean(quote.row), names, table.header, "row"),
        (_clean(quote.column), table.header, names, "column"),
    ):
        if not label:
            continue
        here, named_there = _named(label, own), _named(label, other)
        there = [i for i in named_there if axis == "column" or i > 0]
        if not here and not there:
            if named_there:  # the heading over the row labels ("Fiscal 2018 Plan")
                continue
            return None, None, f"no {axis} of the table is {label!r}"
        add_rows, add_columns = (here, there) if axis == "row" else (there, here)
        if add_rows:
            rows = sorted({*(rows or []), *add_rows})
        if add_columns:
            columns = sorted({*(columns or []), *add_columns})
    return rows, columns, ""


def _in_table(quote: Quote, table: Table) -> tuple[Quote | None, str]:
    """The quote as it stands in ``table`` at its row and column (named by the table's own
    labels when one cell holds it), or None and what stands there."""
    rows, columns, wrong = _axes(quote, table)
    if wrong:
        return None, wrong
    if rows is None and any(holds(table.header[c], quote.text) for c in columns or []):
        return quote, ""  # a heading: the column's, or the table's scale ("$ in millions")
    hits = [
        (r, c)
        for r in (rows if rows is not None else range(len(table.rows)))
        for c in (columns if columns is not None else range(len(table.rows[r])))
        if c < len(table.rows[r]) and holds(table.rows[r][c], quote.text)
    ]
    if len(hits) == 1:
        r, c = hits[0]
        header = table.header[c] if c < len(table.header) else quote.column
        return quote.model_copy(update={"row": table.rows[r][0], "column": header}), ""
    if hits:
        return quote, ""
    if rows and columns and len(rows) == 1 and len(columns) == 1:
        r, c = rows[0], columns[0]
        if c < len(table.rows[r]):
            return None, f"row {quote.row!r}, column {quote.column!r} holds {table.rows[r][c]!r}"
    return None, f"{quote.text!r} is not in that row or column"


def placed(quote: Quote, documents: Mapping[str, str]) -> tuple[Quote, str | None]:
    """The quote where it stands in the documents (a table quote named by the table's own
    row and column labels when one cell holds it), and what is wrong with it (None: it
    stands there). A quote whose source is not one of the documents is looked for in all."""
    named = {quote.source: documents[quote.source]} if quote.source in documents else {}
    where = named or dict(documents)
    in_tables = any(tables(text) for text in where.values())
    if (quote.row or quote.column) and in_tables:
        said = ""
        for text in where.values():
            for table in tables(text):
                found, said = _in_table(quote, table)
                if found is not None:
                    return found, None
        if said:
            return quote, f"{quote.text!r} at {quote.row or '?'} / {quote.column or '?'}: {said}"
    elif any(holds(text, quote.text) for text in where.values()):
        return quote, None  # a paragraph's quote (any row or column it names has no table)
    place = f"in {quote.source}" if named else "in the documents"
    return quote, f"{quote.text!r} does not stand {place}"


def ground(quote: Quote, documents: Mapping[str, str]) -> str | None:
    """What is wrong with ``quote`` (None: it stands in the documents where it says)."""
    return placed(quote, documents)[1]


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
    stands = f"every quoted value stands in the documents ({len(quoted)} quoted)"
    return grounding_check(candidate, problems, stands, "quotes that do not stand in the documents")


def grounding_check(candidate: str, problems: list[str], stands: str, wrong: str) -> CheckVerdict:
    """A grounding verdict: passed, saying ``stands``, when nothing is wrong; else failed,
    saying ``wrong`` and the first problems. Never independent: that a value stands in the
    documents does not say it answers the question."""
    what = stands if not problems else f"{wrong}: " + "; ".join(problems[:4])
    return CheckVerdict(
        kind="grounding", what=what, candidate=candidate, passed=not problems, independent=False
    )
