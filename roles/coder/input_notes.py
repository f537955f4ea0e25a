"""What the coder is told about its inputs beyond their JSON: that a string holds a table
(CSV text), and how to read it; that a list holds quotes, and how to read their numbers;
that there are none, and the goal's text has the values.

A small model given a CSV table as one JSON string splits it by hand and gets it wrong
(the dev suite's csv cases: every draft unpacked the rows wrongly); one line that names
the table's header and the reader to use is what it needs.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from pydantic import JsonValue

__all__ = ["NO_INPUTS", "input_notes"]

NO_INPUTS = (
    "inputs.json is empty: take every value the program needs from the goal's text and your "
    "task's description, written into the program (do not read them from inputs.json)."
)


def _table(text: str) -> tuple[str, list[str], int] | None:
    """(delimiter, header, data rows) when ``text`` is a delimited table, else None."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters=",;\t|")
    except csv.Error:
        return None
    rows = list(csv.reader(io.StringIO("\n".join(lines)), dialect))
    width = len(rows[0])
    if width < 2 or any(len(row) != width for row in rows):
        return None
    return dialect.delimiter, rows[0], len(rows) - 1


def _quotes(value: JsonValue) -> bool:
    """Whether ``value`` is a researcher's quotes (`bus.evidence.Quote` as JSON)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(q, dict) and "text" in q and "row" in q for q in value)
    )


def input_notes(inputs: Mapping[str, JsonValue]) -> list[str]:
    """One sentence per input a program is likely to misread, or that there are none."""
    if not inputs:
        return [NO_INPUTS]
    notes = []
    for name, value in inputs.items():
        if name == "values" and isinstance(value, dict) and value:
            example = next(iter(value))
            notes.append(
                f"inputs[{name!r}] maps each figure quoted from the documents to its number, "
                f"by where it stands (e.g. values[{example!r}]); a figure in parentheses is "
                "already negative. Use these numbers; do not parse the documents again."
            )
            continue
        if _quotes(value):
            notes.append(
                f"inputs[{name!r}] is a list of quotes from the documents: each a dict with "
                '"text" (the value as the report writes it), "source", "row" and "column". '
                'Turn a quoted number into a float with `number(q["text"])` where '
                "`def number(t): t = t.replace(',', '').replace('$', '').replace('%', '').strip(); "
                "return -float(t[1:-1]) if t.startswith('(') else float(t)`; pick each quote "
                "by its row and column."
            )
            continue
        if not isinstance(value, str) or (table := _table(value)) is None:
            continue
        delimiter, header, rows = table
        reader = f'csv.DictReader(io.StringIO(inputs["{name}"])'
        reader += ")" if delimiter == "," else f", delimiter={delimiter!r})"
        notes.append(
            f"inputs[{name!r}] is one string of CSV text: a header row "
            f"({delimiter.join(header)}) and {rows} data rows. Read it with `{reader}` "
            "(each row a dict keyed by the header; convert numbers with float()); do not "
            "split it by hand."
        )
    return notes
