"""How sure an answer is, from the views that gave it — and which answers need two views.

A view is a way of reaching an answer that fails in its own way: a program, a worked answer
in prose. Two drafts of one view from one small model misread a goal alike (two programs that
both returned their accumulator's starting value agreed on a trivial answer); a program and
a prose answer that agree rarely do (FINDINGS: answers of two representations agreeing are
the cheapest strong signal of a right answer). So the score ranks by the views that agree,
then by the answer's share of every candidate drawn:

- two views agree: 0.6 + 0.4 x share;
- a program and a plain program agree (`PROGRAM_REQUESTS`), and nothing else: 0.45 + 0.35 x share;
- two drafts of one view agree: 0.3 + 0.3 x share;
- a view worked by code from the documents alone (`CODE_VIEWS`): 0.25 + 0.3 x share;
- nothing agrees: 0.3 x share;

halved when the verifier's check fails it. A share counts a candidate's first view in full
and every further draft of a view already counted in its group by half. An answer that is a
trivial value (0, 1, -1, empty, true/false) or only repeats values the goal gives is what a
program that found nothing gives, so it needs two views before it can pass (`needs_views`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from bus.verdicts import Confidence
from roles.verifier.values import numbers

__all__ = [
    "APART_VIEWS",
    "CODE_VIEWS",
    "PROGRAM_REQUESTS",
    "TWO_VIEWS",
    "apart",
    "needs_views",
    "score_of",
    "weight",
]

TWO_VIEWS = 0.6
"""The lowest score two agreeing views give (and the highest anything less gives)."""

CODE_VIEWS = frozenset({"table"})
"""Views worked by code from the documents, with no model (the table's figures or arithmetic
the question asks, `roles.reports.cells`): alone, surer than a lone model view — offline on
TAT-QA dev it is right on 82 % of the questions it answers, where a 1.5B answer no other
view agreed with was right on 3 of 34 arithmetic questions in the TAT-QA results so far —
and still short of the 0.6 two views give."""

PROGRAM_REQUESTS = frozenset({"program", "plain"})
"""A program of the team's and one asked as a person asks it (`roles.coder.plain`): two
requests that fail differently, of one representation — surer than two drafts of one
request, less sure than a program and a worked answer."""

APART_VIEWS = frozenset({"prose", "sentence", "table"})
"""Views drawn from the documents alone, never shown the researcher's reading: a worked
answer, the report's sentence the goal matches best, the table's arithmetic. (A program
from a reading computes from its quoted values; a quotation is them.)"""


def apart(confidence: Confidence | None) -> bool:
    """Whether an answer rests on two views, or more, that never saw the reading: a quote
    the reading got wrong bears on nothing it says."""
    kinds = set(confidence.views) if confidence is not None else set()
    return len(kinds) >= 2 and kinds <= APART_VIEWS


_TRIVIAL_NUMBERS = frozenset({0.0, 1.0, -1.0})
_TRIVIAL_WORDS = frozenset({"", "true", "false", "none", "null", "[]", "{}", "n/a", "nan"})


def weight(views: Sequence[str]) -> float:
    """A group's weight: each view's first member 1, every further member of it 0.5."""
    seen: set[str] = set()
    total = 0.0
    for v in views:
        total += 0.5 if v in seen else 1.0
        seen.add(v)
    return total


def score_of(
    kept: Sequence[str],
    others: Sequence[tuple[str, Sequence[str]]],
    *,
    agreeing_drafts: int,
    check_failed: bool = False,
) -> Confidence:
    """The confidence of the kept answer: ``kept``, the views of its group's members in the
    order drawn; ``others``, every other group's value and views; ``agreeing_drafts``, how many
    of the kept group are computations of their own (not one program twice)."""
    total = weight(kept) + sum(weight(v) for _, v in others)
    share = weight(kept) / total if total else 0.0
    kinds = list(dict.fromkeys(kept))
    if set(kinds) == PROGRAM_REQUESTS:
        score = 0.45 + 0.35 * share
    elif len(kinds) >= 2:
        score = TWO_VIEWS + 0.4 * share
    elif agreeing_drafts >= 2:
        score = 0.3 + 0.3 * share
    elif kinds and set(kinds) <= CODE_VIEWS:
        score = 0.25 + 0.3 * share
    else:
        score = 0.3 * share
    if check_failed:
        score /= 2
    return Confidence(
        score=round(score, 4),
        views=kinds,
        share=round(share, 4),
        candidates=len(kept) + sum(len(v) for _, v in others),
        alternatives=[f"{value[:120]} ({', '.join(dict.fromkeys(v))})" for value, v in others],
    )


def needs_views(value: JsonValue, quoted: frozenset[float]) -> str:
    """Why ``value`` can pass only when two views agree on it ("" when one view's agreement
    may do): it is a trivial value, or it only repeats values the goal gives (``quoted``)."""
    text = value if isinstance(value, str) else str(value)
    found = numbers(text)
    if not found:
        if text.strip().strip(".").lower() in _TRIVIAL_WORDS:
            return f"{text.strip()[:40]!r} is a trivial value"
        return ""
    if all(n in _TRIVIAL_NUMBERS for n in found):
        return f"{text.strip()[:40]!r} is a trivial value (what a search that found nothing gives)"
    if all(n in quoted for n in found):
        return f"{text.strip()[:40]!r} only repeats values the goal gives"
    return ""
