"""A quote: a value or phrase as it stands in a document, and where it stands (a table's row
and column, or nothing more for a paragraph), so that code can confirm it is there."""

from __future__ import annotations

from pydantic import Field

from bus.payload_base import _Model

__all__ = ["EVIDENCE", "QUOTED", "READING", "VALUES", "Quote"]


EVIDENCE = "evidence"
"""A reading task's output of quotes (filled by the researcher from them, never the model)."""
VALUES = "values"
"""A reading task's output of the quoted figures as numbers, named by where they stand."""
QUOTED = "quoted"
"""A reading task's output of the answer in the documents' own words ("" when it must be
computed); the coder answers by it as it stands."""
READING = frozenset({EVIDENCE, VALUES, QUOTED})
"""A reading task's outputs: quotes and what stands in them, not values worked out."""


class Quote(_Model):
    """One piece of evidence, quoted from a document (its place first, then what stands
    there: a model reading a table names the row and column before the value)."""

    source: str = ""
    """The document's name (as the researcher was shown it)."""
    row: str = ""
    """For a table: the first cell of the row it stands in."""
    column: str = ""
    """For a table: the header of the column it stands in."""
    text: str = Field(min_length=1)
    """The value or words exactly as the document gives them ("1,234", "(56)", "net sales")."""
