"""Whether what a reading states stands in the documents: a statement, definition, formula or
fact (the outputs a reading of the documents gives, `roles.plan_schema.READING_OUTPUTS`) is
grounded when every number it states stands in a document or in what its task was given, and
most of its words stand in the documents. Checked by code, so no model can fake it: a live
1.5B researcher asked to read made up an estimate (7918) and a count (7052) no document
holds, and another stated the goal's own limit as what the documents say."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import JsonValue

from bus.verdicts import CheckVerdict
from roles.plan_schema import READING_OUTPUTS
from roles.researcher.grounding import grounding_check
from roles.verifier.values import as_text, numbers

__all__ = ["ECHO", "MOST_WORDS", "STATED", "statement_problems", "statement_verdict"]

STATED = frozenset(READING_OUTPUTS)
"""The outputs that say what the documents say, and are checked against them."""

MOST_WORDS = 0.6
"""The share of a statement's own words (three letters or more, the small words every
sentence has left out) that must stand in the documents. Live 1.5B statements copied from
the quickstart's corpus stood at 0.89 to 1.0 (10 recorded outputs); "states" for "says" is a
paraphrase it allows."""

_SMALL = frozenset(
    [
        "and",
        "are",
        "but",
        "for",
        "from",
        "has",
        "have",
        "its",
        "not",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "was",
        "were",
        "which",
        "with",
        "what",
        "when",
        "where",
        "who",
        "will",
        "would",
        "can",
        "also",
        "into",
        "than",
    ]
)


def _stems(text: str) -> list[str]:
    """A text's own words, each cut to five letters (so "approximately" stands in
    "approximation", "primes" in "prime")."""
    words = re.findall(r"[^\W\d_]{3,}", text.casefold())
    return [w[:5] for w in words if w not in _SMALL]


def _stands(n: float, among: list[float]) -> bool:
    return any(abs(n - m) <= 1e-9 * max(1.0, abs(m)) for m in among)


ECHO = 0.9
"""The share of a statement's words from the task it was given above which it is the task
repeated: a live 1.5B reading (43c6b76) stated "From the documents, state what they say
about prime numbers and their count." twice, told only that too few of its words stood in
the documents, and wrote what they say in its summary instead."""


def statement_problems(
    outputs: Mapping[str, JsonValue], documents: Mapping[str, str], given: str
) -> list[str]:
    """What in the statements of ``outputs`` stands in none of ``documents``: numbers not in
    them nor in ``given`` (the task as the researcher was given it), and a statement too few
    of whose words stand in them (and, where it is the task's words again, `ECHO`, that).
    Empty: every statement stands."""
    texts = "\n".join(documents.values())
    known = numbers(texts) + numbers(given)
    stems = set(_stems(texts))
    asked = set(_stems(given))
    problems = []
    for name, value in outputs.items():
        if name not in STATED:
            continue
        said = as_text(value)
        unknown = list(dict.fromkeys(n for n in numbers(said) if not _stands(n, known)))
        if unknown:
            shown = ", ".join(f"{n:g}" for n in unknown[:4])
            problems.append(f"{name}: {shown} stand(s) in no document")
        own = _stems(said)
        if own:
            share = sum(w in stems for w in own) / len(own)
            if share < MOST_WORDS:
                problems.append(
                    f"{name}: {share:.0%} of its words stand in the documents "
                    f"({MOST_WORDS:.0%} is the least)"
                )
                if sum(w in asked for w in own) / len(own) >= ECHO:
                    problems.append(
                        f"{name}: it repeats what you were asked, not what the documents "
                        f"say; write in {name} the documents' own sentences on it"
                    )
    return problems


def statement_verdict(
    outputs: Mapping[str, JsonValue], documents: Mapping[str, str], given: str, candidate: str
) -> CheckVerdict | None:
    """The grounding check of a reading's statements (None: it states none, or there are
    no documents to check them against)."""
    stated = [name for name in outputs if name in STATED]
    if not stated or not documents:
        return None
    problems = statement_problems(outputs, documents, given)
    stands = f"what it states stands in the documents ({', '.join(stated)})"
    wrong = "statements that do not stand in the documents"
    return grounding_check(candidate, problems, stands, wrong)
