"""Reading numbers out of a text: one rule for agreement between candidates, the verifier's
checks, the literals a program writes and the eval's graders, so that what one counts as
the number "1,234.5" or "-3" every other counts alike; and the final value of a worked
answer (its last ``Answer:``), read alike for the society's prose view and the ``direct``
baseline."""

from __future__ import annotations

import json
import re

from pydantic import JsonValue

__all__ = ["ANSWER_LINE", "as_text", "final_answer", "numbers", "numerals"]

_NUMBER = re.compile(r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
"""A number standing on its own: ``1,234.5``, ``-3``, ``2e-3``; not the digits inside a word
(``H2O``, ``x2``), and a hyphen between words or digits (``2024-03-14``) is no minus sign."""


def as_text(value: JsonValue) -> str:
    """``value`` as the text an answer is: itself, or its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def numerals(value: JsonValue) -> list[str]:
    """The numbers ``value`` states, as written (thousands separators dropped, ``−`` as ``-``,
    no ``+``), so that their decimals can still be counted; a non-text value is read as JSON."""
    text = as_text(value)
    return [
        m.group(0).replace(",", "").replace("−", "-").lstrip("+") for m in _NUMBER.finditer(text)
    ]


def numbers(value: JsonValue) -> list[float]:
    """The numbers ``value`` states, as floats (see `numerals`)."""
    found = []
    for n in numerals(value):
        try:
            found.append(float(n))
        except (ValueError, OverflowError):
            continue
    return found


ANSWER_LINE = re.compile(r"(?i)\banswer\s*(?:is\s*)?\**\s*[:：]\**\s*")


def final_answer(text: str) -> str:
    """What a worked reply answers: the text after its last ``Answer:``, else all of it."""
    marks = list(ANSWER_LINE.finditer(text))
    return text[marks[-1].end() :].strip() if marks else text.strip()
