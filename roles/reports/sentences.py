"""A report's sentences (its text, not its tables), the one a question matches best, and
whether an answer stands in one.

A report's answer from its text is most often a span of one sentence. On TAT-QA dev, the
sentence that BM25 ranks first for the question (Porter-stemmed), a heading passed over,
holds the answer of 286 of the 349 span questions answered from text (82 %, offline; 276
unstemmed). Picking that sentence takes no call, and it fails in other ways than a model
reading the report, so it is a view of its own
(`roles.coder.select`). It agrees with another view only when that view's answer is a
clause that stands in it (`supports`), not a lone figure or name: a sentence holds many of
those.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Mapping

from roles.memory import STOP_WORDS, fts_query
from roles.reports.tables import numbers_in

__all__ = [
    "MIN_WORDS",
    "SHARE",
    "best_sentence",
    "question_of",
    "ranked",
    "sentence_for",
    "sentences",
    "supports",
]

MIN_WORDS = 2
"""The fewest content words an answer needs before a sentence can agree with it: a word or a
figure alone stands in many sentences, and agreeing on it would say nothing ("Sales taxes",
"approximately 16 years" are answers of TAT-QA text questions)."""
SHARE = 0.6
"""The share of an answer's content words that the sentence must hold: a worked answer
words the report's clause its own way, so not all of them."""

_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“‘'])")
_WORD = re.compile(r"[a-z]+")


def sentences(documents: Mapping[str, str]) -> list[str]:
    """Every sentence of the documents' text, in order; a table's rows (lines that start with
    ``|``) are not text."""
    found: list[str] = []
    for text in documents.values():
        for block in re.split(r"\n\s*\n", text):
            lines = [ln for ln in block.splitlines() if not ln.lstrip().startswith("|")]
            para = " ".join(" ".join(lines).split())
            found += [s for s in _END.split(para) if s.strip()]
    return found


def question_of(goal: str) -> str:
    """What a goal asks: its first paragraph (the rest says how to answer)."""
    return next((p.strip() for p in re.split(r"\n\s*\n", goal) if p.strip()), "")


def ranked(question: str, documents: Mapping[str, str]) -> list[str]:
    """The sentences of ``documents`` that share a word with ``question``, in the order BM25
    ranks them for it (SQLite FTS5, words Porter-stemmed)."""
    found = sentences(documents)
    query = fts_query(question)
    if not found or not query:
        return []
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE VIRTUAL TABLE s USING fts5(text, tokenize=porter)")
        db.executemany("INSERT INTO s(text) VALUES (?)", [(s,) for s in found])
        rows = db.execute("SELECT text FROM s WHERE s MATCH ? ORDER BY bm25(s)", (query,))
        return [str(r[0]) for r in rows.fetchall()]
    finally:
        db.close()


HEADING_WORDS = 4
"""The most words a heading has ("Liquidity and Capital Resources"): BM25 ranks a paragraph
that is a heading alone first when it holds the question's words, and it states nothing. On
TAT-QA dev the first sentence of five words or more held the answer of 286 of the 349 span
questions answered from text, the first of any length 284 (test: 275 and 274)."""


def best_sentence(question: str, documents: Mapping[str, str]) -> str | None:
    """The sentence BM25 ranks first for ``question`` (`ranked`) that is longer than a
    heading, or None when no such sentence shares a word with it."""
    return next((s for s in ranked(question, documents) if len(s.split()) > HEADING_WORDS), None)


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOP_WORDS}


def supports(sentence: str, answer: str) -> bool:
    """Whether ``answer`` stands in ``sentence``: it has `MIN_WORDS` content words or more,
    the sentence holds `SHARE` of them, and every number the answer writes (sign aside) is
    one the sentence writes."""
    words = _content(answer)
    if len(words) < MIN_WORDS or len(words & _content(sentence)) < SHARE * len(words):
        return False
    held = [abs(n) for n in numbers_in(sentence)]
    return all(any(math.isclose(abs(n), h) for h in held) for n in numbers_in(answer))


def sentence_for(answer: str, documents: Mapping[str, str], question: str = "") -> str | None:
    """The sentence of ``documents`` that ``answer`` stands in (`supports`), the one holding
    most of its words, and of those the one ranked first for ``question`` (`ranked`), or
    None: a worked answer that words a clause of the report its own way is answered in the
    report's words."""
    words = _content(answer)
    order = {s: i for i, s in enumerate(reversed(ranked(question, documents)), 1)}
    held = [s for s in sentences(documents) if supports(s, answer)]
    return max(held, key=lambda s: (len(words & _content(s)), order.get(s, 0)), default=None)
