"""A relation the goal itself defines between values its answer reports — "report the count,
the estimate and how close they are (the count divided by the estimate)" — checked by code
on an answer's own values: the answer that names both operands must state what they give.

Why: two programs of one small model share misreadings. Live 1.5B quickstarts gave the
count's excess over the estimate (0.132) for "how close", plan and goal check alike, and an
answer of a count and an estimate with no ratio at all; comparing computations cannot see
that, but the goal's own words, read by code, can. Only a parenthesis that is nothing but
"the A <op> the B" is read as a definition, and only labels naming one operand and not the
other are read as its value, or, where one label names A alone, one made of both operands'
words ("Estimated count" beside "Actual count") as B's: where either is missing or
ambiguous there is no verdict.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from roles.verifier.agreement import as_fractions
from roles.verifier.values import as_text, numerals

__all__ = ["Relation", "gives", "holds", "relation_in"]

Op = Literal["divided by", "minus", "plus", "times"]

_DEFINED = re.compile(
    r"\(\s*(?:the\s+)?([a-z][a-z ]{0,40}?)\s+(divided by|minus|plus|times)\s+"
    r"(?:the\s+)?([a-z][a-z ]{0,40}?)\s*\)"
)
_OPS: dict[str, Op] = {
    "divided by": "divided by",
    "minus": "minus",
    "plus": "plus",
    "times": "times",
}
_SMALL = frozenset({"a", "an", "the", "of", "its", "their"})


@dataclass(frozen=True)
class Relation:
    """``left op right``, as the goal words it (each operand its words, small ones left out)."""

    left: frozenset[str]
    op: Op
    right: frozenset[str]
    words: str

    def of(self, a: float, b: float) -> float | None:
        """What the relation gives for ``a`` and ``b`` (None: divided by 0)."""
        match self.op:
            case "divided by":
                return a / b if b else None
            case "minus":
                return a - b
            case "plus":
                return a + b
            case "times":
                return a * b


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", text.lower())) - _SMALL


def relation_in(goal: str) -> Relation | None:
    """The one relation the goal defines in a parenthesis of its own between values it also
    names outside it ("report the count, the estimate and how close they are (...)"), or
    None: none; more than one (which value each defines is then not clear); or operands the
    goal names nowhere else ("the total revenue (units times unit price)" sums a product
    over rows, and an answer's total units times a unit price need not give it)."""
    lowered = goal.lower()
    found = list(_DEFINED.finditer(lowered))
    if len(found) != 1:
        return None
    left, op, right = found[0].groups()
    lw, rw = _words(left), _words(right)
    rest = _words(lowered[: found[0].start()] + " " + lowered[found[0].end() :])
    if not lw or not rw or lw == rw or not (lw | rw) <= rest:
        return None
    return Relation(lw, _OPS[op], rw, f"the {left} {op} the {right}")


_LINE = re.compile(
    r"(?:^|(?<=[\n;,{]))\s*\"?([^\n:;=\"{}]{1,80}?)\"?\s*[:=]\s*"
    r"([-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?=$|[\n;,}])"
)


def _flat(value: object, name: str = "") -> list[tuple[str, float]]:
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _flat(v, str(k))]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [(name, float(value))]
    return []


def _labels(answer: str) -> list[tuple[str, float]]:
    """The numbers ``answer`` states under a name: a JSON object's or a Python dict's keys,
    else ``name: number`` lines (a name may hold digits: "Count of primes below 10000")."""
    for parse in (json.loads, ast.literal_eval):
        try:
            parsed = parse(answer.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(parsed, dict):
            return _flat(parsed)
    found = []
    for match in _LINE.finditer(answer):
        try:
            found.append((match.group(1), float(match.group(2).replace(",", "").replace("−", "-"))))
        except ValueError:
            continue
    return found


def _names(words: frozenset[str], name: frozenset[str]) -> bool:
    """Whether a label's words name an operand: each of its words begins one ("estimated")."""
    return all(any(w.startswith(m) for w in name) for m in words)


def _label_words(name: str) -> frozenset[str]:
    """A label's words, less what it says in parentheses ("Ratio (Actual / Estimate)" names
    a ratio)."""
    return _words(re.sub(r"\([^)]*\)", " ", name.replace("_", " ")))


def _operand(
    labels: list[tuple[str, float]], mine: frozenset[str], other: frozenset[str]
) -> float | None:
    """The one value whose name names this operand and not the other."""
    values = set()
    for name, value in labels:
        words = _label_words(name)
        if _names(mine, words) and not _names(other, words):
            values.add(value)
    return values.pop() if len(values) == 1 else None


def _of_both(
    labels: list[tuple[str, float]], relation: Relation, a: float | None, b: float | None
) -> tuple[float, float] | None:
    """The one value whose name is made of both operands' words and nothing else ("Estimated
    count"), and the one value named for an operand alone ("Actual count", ``a`` for the left
    or ``b`` for the right): in a live 1.5B answer the first was the estimate, its only
    candidate once the count is told apart. Returned as (left, right); None unless exactly
    one of each, for different operands."""
    both = set()
    operand_words = relation.left | relation.right
    for name, value in labels:
        words = _label_words(name)
        if (
            _names(relation.left, words)
            and _names(relation.right, words)
            and all(any(w.startswith(m) for m in operand_words) for w in words)
        ):
            both.add(value)
    if len(both) != 1:
        return None
    (shared,) = both
    if a is not None and b is None:
        return a, shared
    if b is not None and a is None:
        return shared, b
    return None


def _stated(value: float, answer: str) -> bool:
    """Whether ``answer`` states ``value``: to the decimals it writes or within 0.1 % (its
    operands may be rounded), and never further than 1 % (a "1" from "greater than 1" is no
    ratio of 1.13)."""
    for n in numerals(as_fractions(answer)):
        places = len(n.split(".")[1]) if "." in n and "e" not in n.lower() else 0
        try:
            off = abs(float(n) - value)
        except ValueError:
            continue
        if off <= max(0.5 * 10**-places, 0.001 * abs(value)) and off <= 0.01 * abs(value):
            return True
    return False


def gives(relation: Relation, answer: JsonValue) -> tuple[float, float, float | None] | None:
    """The two operands' values ``answer`` names and what the relation gives for them (None
    for a division by 0); None where it does not name both."""
    labels = _labels(as_text(answer))
    a = _operand(labels, relation.left, relation.right)
    b = _operand(labels, relation.right, relation.left)
    if a is None or b is None:
        pair = _of_both(labels, relation, a, b)
        if pair is None:
            return None
        a, b = pair
    return a, b, relation.of(a, b)


def holds(relation: Relation, answer: JsonValue) -> bool | None:
    """Whether ``answer``, naming both operands' values, states what the relation gives for
    them; None where it does not name both (nothing to check)."""
    given = gives(relation, answer)
    if given is None:
        return None
    value = given[2]
    return value is not None and _stated(value, as_text(answer))
