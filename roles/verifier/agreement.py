"""Whether two computations of an output agree (the verifier's agreement of candidates).

A small model's program often runs and prints a plausible, wrong value; running it again
proves nothing, but a second program written independently rarely makes the same mistake
(FINDINGS: at 1-3B, drawing again and keeping what a check passes beats repair). Values
agree when the numbers they state agree — each rounded to the fewer decimals of the two,
and those of the shorter statement all found in the longer ("319" in "319 days from
2024-03-14") — or, with no numbers, when the words of one (less the small ones every
sentence has) are all in the other. Numbers quoted from the goal ("from 1900 to 2100")
are left out when both values state others: two answers that agree only on what the goal
said have not agreed on a result. A number stated under a name both values give must be the
same under it (`labelled`), and, asked to, a percentage agrees with the fraction it is
(`as_fractions`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from pydantic import JsonValue

from bus.evidence import READING
from roles.verifier.values import as_text, numbers, numerals

__all__ = ["agree", "as_fractions", "disagreements", "given_in", "labelled", "quoted_in"]


def _decimals(number: str) -> int:
    return len(number.split(".")[1]) if "." in number and "e" not in number.lower() else 0


def _same(a: str, b: str) -> bool:
    places = min(_decimals(a), _decimals(b))
    try:
        return round(float(a), places) == round(float(b), places)
    except (ValueError, OverflowError):
        return a == b


def _within(few: list[str], many: list[str]) -> bool:
    left = list(many)
    for n in few:
        match = next((i for i, m in enumerate(left) if _same(n, m)), None)
        if match is None:
            return False
        left.pop(match)
    return True


_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "were",
        "with",
        "words",
        "word",
    ]
)


def _words(value: JsonValue) -> set[str]:
    return set(re.findall(r"[a-z]+", as_text(value).lower())) - _STOP


def _computed(found: list[str], quoted: frozenset[float]) -> list[str]:
    return [n for n in found if _float(n) not in quoted]


def _float(number: str) -> float | None:
    try:
        return float(number)
    except (ValueError, OverflowError):
        return None


def agree(
    a: JsonValue, b: JsonValue, quoted: frozenset[float] = frozenset(), percent: bool = False
) -> bool:
    """Whether two values of one output state the same thing (see the module's docstring);
    ``quoted``: the numbers the goal states; ``percent``: a percentage on either side may
    also state the fraction it is (`as_fractions`: "113% close" gives a ratio of 1.13)."""
    if _mislabelled(a, b):
        return False
    if percent and (agree(as_fractions(a), b, quoted) or agree(a, as_fractions(b), quoted)):
        return True
    na, nb = numerals(a), numerals(b)
    ca, cb = _computed(na, quoted), _computed(nb, quoted)
    if ca or cb:  # a result beside the goal's own numbers: compare the results
        na, nb = ca, cb
    if na and nb:
        few, many = (na, nb) if len(na) <= len(nb) else (nb, na)
        return _within(few, many)
    if na or nb:
        return False
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return as_text(a).strip().lower() == as_text(b).strip().lower()
    return wa <= wb or wb <= wa


_LABELLED = re.compile(
    r"(?:^|(?<=[,;{\n])|(?<=\.\s))\s*\"?([A-Za-z][A-Za-z _-]{0,40}?)\"?\s*[:=]\s*"
    r"([-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]*[A-Za-z(])"
)


def labelled(value: JsonValue) -> dict[str, str]:
    """The numbers ``value`` states under a name of their own — ``Estimate: 1085.74``, a JSON
    object's ``"ratio": 1.132`` — by the name in lower case, its words parted by one space;
    a name given two numbers is left out."""
    found: dict[str, list[str]] = {}
    for match in _LABELLED.finditer(as_text(value)):
        name = " ".join(re.findall(r"[a-z]+", match.group(1).lower()))
        found.setdefault(name, []).append(
            match.group(2).replace(",", "").replace("−", "-").lstrip("+")
        )
    return {name: ns[0] for name, ns in found.items() if name and len(ns) == 1}


def _mislabelled(a: JsonValue, b: JsonValue) -> bool:
    """Whether a name both values state a number under is given different numbers: a live
    1.5B goal check's program computed "Estimate: 1.13, Ratio: 1085.74" and another "Estimate:
    1085.736, Ratio: 1.13", the same numbers, and agreement by numbers alone made them one."""
    la, lb = labelled(a), labelled(b)
    return any(not _same(la[name], lb[name]) for name in la.keys() & lb.keys())


_PERCENT = re.compile(r"(?<![\w.])([-+−]?\d+(?:\.\d+)?)\s*(?:%|per ?cent\b)")


def as_fractions(value: JsonValue) -> str:
    """``value`` with each percentage written as the fraction it is, to the decimals it was
    stated to ("113%" as "1.13", "5.5 percent" as "0.055"): a live 1.5B quickstart's goal
    check wrote the count divided by the estimate as "113% close" where the plan wrote
    1.132."""

    def fraction(match: re.Match[str]) -> str:
        try:
            return format(Decimal(match.group(1).replace("−", "-")).scaleb(-2), "f")
        except InvalidOperation:
            return match.group(0)

    return _PERCENT.sub(fraction, as_text(value))


def quoted_in(text: str) -> frozenset[float]:
    """The numbers a goal states, which an answer may repeat without having computed them."""
    return frozenset(numbers(text))


def given_in(inputs: Mapping[str, JsonValue]) -> frozenset[float]:
    """The numbers among ``inputs`` given as values of their own (the quickstart's ``limit:
    10000``), which an answer may repeat as it may the goal's: two live 1.5B answers that
    gave the same count, estimate and ratio "disagreed" because one also said "up to 10000".
    A reading's quotes are left out: they are evidence, and two answers that give a quoted
    figure have agreed on what the documents say."""
    return frozenset(
        float(value)
        for name, value in inputs.items()
        if name not in READING and isinstance(value, int | float) and not isinstance(value, bool)
    )


def disagreements(
    first: Mapping[str, JsonValue],
    second: Mapping[str, JsonValue],
    quoted: frozenset[float] = frozenset(),
) -> list[str]:
    """The outputs on which two computations differ, each as ``name: a vs b`` (``quoted``:
    the goal's numbers, see `agree`)."""
    return [
        f"{name}: {as_text(first[name])[:200]} vs {as_text(second.get(name))[:200]}"
        for name in first
        if not agree(first[name], second.get(name), quoted)
    ]
