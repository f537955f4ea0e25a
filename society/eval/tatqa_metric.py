"""TAT-QA's exact match with scale, written here after the official ``tatqa_metric.py`` and
``tatqa_utils.py`` (NExTplusplus/TAT-QA at 870accc, MIT, Fengbin Zhu 2021), and its reading
of an answer the society writes as a sentence.

The official metric grades a bare prediction (a span or a number) and a predicted scale
(``""``, thousand, million, billion, percent): both are normalised to one string (numbers
as ``%.4f`` of the value rounded to 2 decimals times the scale, percent signs and scale
words folded in, text lower-cased without punctuation or articles) and must be equal.
`exact_match` is that, for a bare prediction (F1 is not ported). `grade_sentence` reads
an answer written as sentences instead, and so departs from it:

- Numbers (arithmetic, count, and spans that are numbers): every number the answer states
  is a prediction, with the scale its own words give (``1,234 thousand``, ``(in
  thousands)``, ``$5.2m``, ``12%``, ``12 percent``); it passes when one of them equals the
  gold value the way the official metric compares a prediction with a predicted scale or
  with its scale word in the string (so ``1.234 million`` equals 1234 thousand, as
  ``get_answer_str`` reads that string; ``1,234`` alone does not: the scale is part of the
  answer). An answer stating more than ``max_numbers`` numbers fails (a list is no answer).
  A count may be a word (``one`` to ``twenty``). A sign counts (the goal asks for signed
  changes). A gold span carrying its own scale word (``$3.0 million``, annotated scale
  million) is read at that word's scale, not multiplied twice as the official metric does.
- Text spans: each gold span, normalised as the metric normalises (curly quotes read as
  straight ones, punctuation ending a word dropped first), must appear as a run of the
  answer's normalised words; a multi-span answer needs every gold span, in any order (a
  set). An answer over ``max_words`` words (plus twice the gold's) fails, as a copy of
  the report is no answer.
- An answer written as a list (items parted by ``; ``, as the society joins quotations) is
  graded as a set, as the official metric grades a multi-span prediction: every item must
  state one of the gold answers (``$492 million; 4.2 years`` fails for 492). Numbers in
  prose around the answer are still read as context, not as items.
- Fixes to the official number reading: ``(1,234)`` is negative (the official pattern
  misses the comma), ``(66)%`` a percent, ``(9.8) million`` millions; ``−`` a minus sign.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass

__all__ = [
    "SCALES",
    "TYPES",
    "Stated",
    "exact_match",
    "gold_answers",
    "gold_value",
    "grade_sentence",
    "is_number",
    "normalize_answer",
    "scale_to_num",
    "stated_numbers",
    "to_number",
]

TYPES = ("span", "multi-span", "count", "arithmetic")
"""TAT-QA's answer types."""
SCALES = ("", "thousand", "million", "billion", "percent")
"""TAT-QA's scales."""

# --- the official reading, ported ------------------------------------------------------


def scale_to_num(scale: str) -> float:
    """The factor a scale word stands for (1 for any other word); whole factors are ints, as
    in the official code, so that whole values stay whole."""
    scale = scale.lower()
    factors: tuple[tuple[str, float], ...] = (
        ("hundred", 100),
        ("thousand", 1000),
        ("million", 1000000),
        ("billion", 1000000000),
        ("percent", 0.01),
    )
    return next((factor for word, factor in factors if word in scale), 1)


_EXCLUDE_IN_NUM = "'\"\\$€£¥%(),[]"


def _clean_num(text: str) -> str:
    return "".join(ch for ch in text if ch not in _EXCLUDE_IN_NUM)


def _extract_one_num(text: str) -> float | None:
    groups = re.findall(r"([+-]?\d+(\.\d+)?)|([+-]?\.\d+)", _clean_num(text))
    if not groups or groups[0][0] == "":
        return None
    num: str = groups[0][0]
    return float(num) if "." in num else int(num)


def is_number(text: str) -> bool:
    """A number, maybe followed by a scale word (``$124``, ``1 million``); not ``2 years``."""
    words = " ".join(_clean_num(w) for w in text.split()).split()
    if not words:
        return False
    try:
        num = float(words[0])
    except ValueError:
        return False
    return not math.isnan(num) and not (len(words) >= 2 and scale_to_num(words[1]) == 1)


def to_number(text: str) -> float | None:
    """The value ``text`` states: ``2.3 million`` 2300000, ``(134.12)`` -134.12, ``18.3%``
    0.183 (rounded to 4 decimals); None without a number."""
    num = _extract_one_num(text)
    if num is None:
        return None
    scale = _word_scale(text)
    negative = -1 if re.search(r"\(\s*[\d.,\s]+\)", text.strip()) else 1  # fix: commas
    percent = 0.01 if re.search(r"[\d.\s]+\)?%", text.strip()) else 1  # fix: (66)%
    return round(num * scale * negative * percent, 4)


def _word_scale(text: str) -> float:
    """The factor of the first word after a number (fix: also after ``(9.8) million``)."""
    words = re.search(r"[\d.]+\)?\s?[a-zA-Z]+", text)
    return scale_to_num(words.group(0)) if words else 1


def _remove_punc(text: str) -> str:
    if is_number(text):
        return text
    return "".join(ch for ch in text if ch not in string.punctuation)


def _normalize_number(text: str) -> str:
    value = to_number(text) if is_number(text) else None
    return text if value is None else str(value)


def normalize_answer(text: str) -> str:
    """Lower-cased, without punctuation, articles and extra whitespace; numbers as values."""
    parts = [
        " ".join(re.sub(r"\b(a|an|the)\b", " ", _normalize_number(_remove_punc(tok))).split())
        for tok in text.lower().split(" ")
    ]
    return " ".join(p for p in parts if p.strip()).strip()


def gold_answers(answer: object, answer_type: str) -> list[str]:
    """The data's answer as the metric's gold strings (spans as they are, a count whole)."""
    if answer_type in ("span", "multi-span") and isinstance(answer, list):
        return [str(a) for a in answer]
    if answer_type == "count":
        return [str(int(str(answer)))]
    return [str(answer)]


def gold_value(span: str, scale: str) -> float | None:
    """The value a gold span (or bare prediction) stands for at ``scale``, as the metric
    compares it; None when it is text."""
    value = to_number(span) if is_number(span) else None
    if value is None:
        return None
    return round(value if "%" in span else round(value, 2) * scale_to_num(scale), 4) + 0.0


def _answer_string(answers: list[str], scale: str) -> str:
    """The official ``get_answer_str``: sorted answers, numbers as ``%.4f``, else the text
    with the scale word."""
    parts = []
    for ans in sorted(answers):
        value = gold_value(ans, scale)
        parts.append(f"{value:.4f}" if value is not None else f"{ans} {scale}".rstrip())
    return " ".join(parts)


def exact_match(answers: list[str], scale: str, prediction: list[str], pred_scale: str) -> bool:
    """The official exact match of a bare prediction with its scale (``answers`` from
    `gold_answers`): a number without scale or ``%`` may also be the percent's fraction."""
    if not prediction or not answers:
        return False
    candidates = [_answer_string(prediction, pred_scale)]
    alone = prediction[0] if len(prediction) == 1 else ""
    if alone and not pred_scale and "%" not in alone and is_number(alone):
        value = to_number(alone)
        if value is not None:
            candidates.append(f"{value:.4f}")
    gold = normalize_answer(_answer_string(answers, scale))
    return any(normalize_answer(c) == gold for c in candidates)


# --- reading a sentence ------------------------------------------------------------------

_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_BEFORE = re.compile(
    r"(?<![\w.,])(\(\s*)?([-−–](?!\s))?(?:US\s?\$|USD\s?|\$|€|£|¥)?\s?(\(\s*)?([-−–](?!\s))?$"
)
"""What may stand before a number: an opening parenthesis, a minus sign right before the
number or its currency (not a hyphen after a word or digit, not ``a - b``), a currency."""
_CLOSE = re.compile(r"\s*\)")
_PERCENT = re.compile(r"\s?(?:%|per\s?cent\b|percentage points?\b)", re.I)
_WORD_SCALE = re.compile(r"\s?(thousand|million|billion)s?\b", re.I)
_IN_SCALE = re.compile(r"\s*\(?\s*in\s+(thousand|million|billion)s\b", re.I)
_SUFFIX = re.compile(r"(k|m|mn|mm|bn)\b", re.I)
_SUFFIXES = {"k": "thousand", "m": "million", "mn": "million", "mm": "million", "bn": "billion"}
_WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen", "twenty"),
]
_COUNT_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.I)
_QUOTES = str.maketrans({"‘": "'", "’": "'", "´": "'", "“": '"', "”": '"', "−": "-"})


@dataclass(frozen=True)
class Stated:
    """A number an answer states, with the scale its own words give it."""

    value: float
    scale: str
    text: str

    def values(self) -> set[float]:
        """What the metric could take it for: the number at its scale (rounded to 2 decimals
        before or after scaling, a percent's to 4) and, with no scale, the bare number."""
        factor = scale_to_num(self.scale)
        found = {round(round(self.value, 2) * factor, 4), round(self.value * factor, 2)}
        if self.scale == "percent":
            found.add(round(self.value * factor, 4))
        if not self.scale:
            found.add(round(self.value, 4))
        return {v + 0.0 for v in found}


def _scale_after(text: str, at: int) -> tuple[str, int]:
    """The scale the words at ``text[at:]`` give a number, and where they end."""
    if m := _PERCENT.match(text, at):
        return "percent", m.end()
    for pattern in (_WORD_SCALE, _IN_SCALE):
        if m := pattern.match(text, at):
            return m.group(1).lower(), m.end()
    if (m := _SUFFIX.match(text, at)) and m.group(1).lower() in _SUFFIXES:
        return _SUFFIXES[m.group(1).lower()], m.end()
    return "", at


def stated_numbers(text: str, words: bool = False) -> list[Stated]:
    """Every number ``text`` states, signed (``-5``, ``(5.2)``, ``$(1,234)``) and scaled by
    the words after it; with ``words``, also ``one`` to ``twenty``."""
    found = []
    for m in _NUM.finditer(text):
        value = float(m.group(1).replace(",", ""))
        before = _BEFORE.search(text, max(0, m.start() - 20), m.start())
        closed = _CLOSE.match(text, m.end())
        end = m.end()
        negative = False
        if before is not None:
            opened = before.group(1) or before.group(3)
            negative = bool(before.group(2) or before.group(4))
            if opened and closed:
                negative, end = True, closed.end()
        scale, end = _scale_after(text, end)
        start = before.start() if before is not None else m.start()
        found.append(Stated(-value if negative else value, scale, text[start:end].strip()))
    if words:
        for w in _COUNT_WORD.finditer(text):
            found.append(Stated(float(_WORDS.index(w.group(1).lower())), "", w.group(1)))
    return found


def _tokens(text: str) -> list[str]:
    """The normalised words of a sentence: curly quotes as straight ones, and a full stop or
    comma ending a word dropped first (so that ``€1.00.`` is still a number)."""
    return normalize_answer(re.sub(r"[.,;:!?]+(?=\s|$)", "", text.translate(_QUOTES))).split()


def _has_run(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def grade_sentence(
    text: str,
    answers: list[str],
    answer_type: str,
    scale: str,
    max_numbers: int = 12,
    max_words: int = 150,
) -> tuple[bool, str]:
    """Whether the answer ``text`` states the gold ``answers`` at ``scale`` (see the module's
    rules), and why; the reason starts with the answer type."""
    head = f"{answer_type}:"
    wanted = [a for a in answers if a.strip()]
    if not text.strip():
        return False, f"{head} no answer"
    limit_words = max_words + 2 * sum(len(a.split()) for a in wanted)
    if len(text.split()) > limit_words:
        return False, f"{head} over {limit_words} words: a copy of the report is no answer"
    values = {a: gold_value(a, "" if _word_scale(a) != 1 else scale) for a in wanted}
    stated = stated_numbers(text, words=answer_type == "count")
    limit = max(max_numbers, 2 * len(wanted))
    if any(v is not None for v in values.values()) and len(stated) > limit:
        return False, f"{head} states {len(stated)} numbers (at most {limit}): a list is no answer"
    hay = _tokens(text)
    missing, seen = [], []
    for span, value in values.items():
        if value is None:
            if not _has_run(hay, _tokens(span)):
                missing.append(repr(span))
            continue
        hit = next((s for s in stated if value in s.values()), None)
        if hit is None:
            missing.append(f"{span!r} at scale {scale or 'none'} (= {value:g})")
        else:
            seen.append(hit.text)
    if missing:
        saw = ", ".join(s.text for s in stated[:8]) or "no number"
        return False, _short(f"{head} missing {'; '.join(missing)}; saw {saw}")
    if extra := _extra_items(text, values, answer_type):
        return False, _short(f"{head} lists {extra!r}, which is none of {wanted!r}: a set")
    said = f" (stated: {', '.join(seen)})" if seen else ""
    return True, _short(f"{head} states {', '.join(map(repr, wanted))}{said}")


_ITEM_SEP = re.compile(r";\s+")


def _extra_items(text: str, values: dict[str, float | None], answer_type: str) -> str:
    """The first item of an answer written as a list (items parted by semicolons) that
    states none of the gold answers, or ``""``: a list is graded as a set, so an item
    beyond the gold's is a wrong answer, not context. A gold span with a semicolon of its
    own keeps the answer whole."""
    items = [i.strip() for i in _ITEM_SEP.split(text.strip()) if re.search(r"\w", i)]
    if len(items) < 2 or any(_ITEM_SEP.search(span) for span in values):
        return ""
    for item in items:
        words = _tokens(item)
        stated = stated_numbers(item, words=answer_type == "count")
        if not any(
            _has_run(words, _tokens(span))
            if value is None
            else any(value in s.values() for s in stated)
            for span, value in values.items()
        ):
            return item
    return ""


def _short(text: str, n: int = 300) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
