"""What a reading task asks of the model: quotes first, each its document, row and column
before its text, then whether the answer is stated or computed, then the outputs — in a
schema that constrained decoding holds it to. The documents' names are an enum when they
are read whole. The tables' row and column labels are not: as enums they made
llama-cpp-python's constrained decoding crawl (a TAT-QA dev reading call of 263 tokens took
over three minutes, against 51 s without them); grounding matches the labels loosely and
sends a wrong one back instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from roles.researcher.answer import FILLED, QUOTED, ResearchAnswer
from roles.structured import AnswerShape

__all__ = ["MAX_CHARS", "MAX_LABEL", "MAX_QUOTES", "QUOTING", "evidence_shape"]

QUOTING = """Quote in "quotes" every value and phrase the task needs, exactly as the document
writes it ("1,234", "(56)", "12.5%", the report's own words): for each, its document
("source"); from a table, the row (its first cell) and the column (its header) it stands
in, then the value in that cell ("text"); from a paragraph, row and column "" and the words
as "text". Code checks that every quote stands there. Then say in "answer_is" whether
the answer is "stated" in the documents as it is (a figure, a name, words, the items asked
for) or must be "computed" from several figures (a change, a difference, a total, an
average, a ratio, a percentage): when computed, "quoted" is ""."""

MAX_QUOTES = 8
"""The most quotes one answer holds (what a question over one report rests on; a small
model otherwise goes on quoting until its token limit)."""

MAX_CHARS = 500
"""The longest quote or output string, in characters: decoding must close it there. On TAT-QA
dev the longest answer span is 408 characters and 99 % of the paragraphs' sentences are
under 480; a 1.5B reading whose string ran on used its whole 1,024 tokens in each of four
tries (about 190 s each, past the researcher's timeout)."""
MAX_LABEL = 200
"""The longest row or column label of a quote, in characters."""


def evidence_shape(
    outputs: Sequence[str], documents: Mapping[str, str] | None
) -> AnswerShape[ResearchAnswer]:
    """The answer to a task that asks for ``evidence``: one to `MAX_QUOTES` quotes, then every
    other output (a string, or a list of strings when several items are asked) — no summary
    and no sources (the quotes name theirs): on this machine every token a 1.5B model writes
    costs about 0.1 s. ``documents``: those read whole (their names become an enum), or None
    when only passages were read."""
    names = [n for n in dict.fromkeys(outputs) if n not in FILLED]
    one = {"type": "string", "maxLength": MAX_CHARS}
    text_or_list = {"anyOf": [one, {"type": "array", "items": one, "maxItems": MAX_QUOTES}]}
    source: dict[str, Any] = {"enum": list(documents)} if documents else {"type": "string"}
    quote = {
        "type": "object",
        "properties": {
            "source": source,
            "row": {"type": "string", "maxLength": MAX_LABEL},
            "column": {"type": "string", "maxLength": MAX_LABEL},
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_CHARS},
        },
        "required": ["source", "row", "column", "text"],
    }
    doc: dict[str, Any] = {
        "type": "object",
        "properties": {
            "quotes": {"type": "array", "items": quote, "minItems": 1, "maxItems": MAX_QUOTES},
            **({"answer_is": {"enum": ["stated", "computed"]}} if QUOTED in names else {}),
            "outputs": {
                "type": "object",
                "properties": {n: text_or_list for n in names},
                "required": names,
            },
        },
        "required": ["quotes", *(["answer_is"] if QUOTED in names else []), "outputs"],
    }

    def check(answer: ResearchAnswer) -> str | None:
        if answer.outputs is None or not answer.quotes:
            return "give the quotes and the outputs"
        lost = [n for n in names if n not in answer.outputs]
        return "; ".join(f"outputs.{n}: Field required" for n in lost) or None

    return AnswerShape(ResearchAnswer, doc, check)
