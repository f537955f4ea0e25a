"""Arithmetic a question asks of a report's table, worked by code: the operation its words
name (a change, a percentage change, an average, a sum, one row's share of another), the
rows its words name and the columns of the years it gives (`worked`).

TAT-QA's arithmetic questions are mostly of a few forms ("What was the percentage change in
X between 2018 and 2019?"), and a 1.5B model that reads the table picks the wrong cell or
the wrong way round as often as not (test 12: one arithmetic question of five right). Code
that finds the cells by the question's words fails in other ways (a row two labels name
alike, a question worded otherwise), so it is a view of its own (`roles.coder.select`). On
TAT-QA dev (offline, 718 arithmetic questions) it answers 485 and is right on 418 (86 %,
the scale graded too), and it answers 11 of the 950 other questions; it answers nothing
when two rows match the question alike or a year has no column. Its rules were written on
dev alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from roles.reports.rows import (
    SPAN,
    YEAR,
    Named,
    column,
    every_year,
    extra_words,
    in_percent,
    row_named,
    years_named,
)
from roles.reports.scale import document_scale, scale_of
from roles.reports.tables import number_of

__all__ = ["Operation", "Worked", "operation_of", "worked"]

Operation = Literal["percent change", "average", "change", "sum", "share", "ratio"]

_OPERATIONS: tuple[tuple[Operation, re.Pattern[str]], ...] = (
    (
        "percent change",
        re.compile(
            r"percent(age)?\s*(change|increase|decrease|growth|decline|rise|drop)|% change|"
            r"growth rate|rate of (change|increase)",
            re.I,
        ),
    ),
    (
        "average",
        re.compile(
            r"(?<!weighted )(?<!weighted-)(?<!change in the )(?<!change in )\baverage\b"
            r"(?! (increase|decrease|change))",
            re.I,
        ),
    ),
    (
        "change",
        re.compile(r"\bchange\b|\bdifference\b|increase|decrease|\bgrowth\b|\bvariance\b", re.I),
    ),
    ("sum", re.compile(r"\btotal\b|\bsum\b|\bcombined\b|\baltogether\b", re.I)),
)
"""Each operation and the words that ask for it, the first that matches deciding ("the
percentage change" is no change, "the average total" no sum; "the change in the average
life expectancy" and a weighted average's change are changes)."""

_SHARE = re.compile(
    r"as a (percentage|proportion|ratio|%) of|percentage of|proportion of|what percent|"
    r"ratio of|% of",
    re.I,
)
"""A share of one row in another: two rows, which this reading does not find."""
_SHARES: tuple[tuple[Operation, re.Pattern[str]], ...] = (
    (
        "share",
        re.compile(
            r"(?:what (?:is|was)|how much (?:is|was))?\s*(?:the )?(?P<part>.+?) "
            r"as an? (?:percentage|%|proportion) of (?:the )?(?P<whole>.+)",
            re.I,
        ),
    ),
    (
        "share",
        re.compile(
            r"what (?:is|was) the (?:percentage|proportion|share) of (?P<part>.+?) "
            r"(?:(?:in|to|among) (?:the )?(?P<whole>total.+)|(?:out of|over) (?:the )?(?P<of>.+))",
            re.I,
        ),
    ),
    (
        "share",
        re.compile(
            r"what (?:percentage|proportion) of (?:the )?(?P<whole>total .+?) "
            r"(?:is|was|were|are) (?:made up of |generated from |from )?(?P<part>.+)",
            re.I,
        ),
    ),
    (
        "ratio",
        re.compile(
            r"what (?:is|was) the ratio of (?:the )?(?P<part>.+?) to (?:the )?(?P<whole>.+)", re.I
        ),
    ),
)
"""The forms of a question that asks one row's figure as a share of another's in a year
("What is X as a percentage of total Y in 2019?", "What is the ratio of X to Y in 2019?",
"What is the proportion of A and B over Y in 2019?"): each names its rows in words of their
own. On TAT-QA dev they fire on 13 of the 79 share questions, 12 right; other forms (a
year's column of buckets, a share with no year) are not worked."""
_TWO = re.compile(r"(?:the )?(?:sum of )?(?:the )?(?P<a>.+?) and (?:the )?(?P<b>.+)", re.I)
"""Two rows a share's part names together."""
_TRAILING = re.compile(r"\s*\b(?:in|for|at|as of|during)\s*(?:fiscal|FY)?\s*$", re.I)
_NOT_ARITHMETIC = re.compile(
    r"\bwhich year\b|\brespectively\b|^why\b|^how (?:is|are|was|were|does|do)\b|"
    r"\b(?:driven|caused) by\?|\b(?:due|attributed|attributable) to\?",
    re.I,
)
"""Words of a question that asks for a year, several figures, a reason or a method,
whatever else it says ("the total … for 2019 and 2018 respectively" asks for two figures;
"How is the net average price calculated?", "What was the increase … driven by?")."""
_BY = re.compile(r"\b(decrease|decline|fall|drop)(d)? by\b", re.I)
_DIFFERENCE = re.compile(r"\bdifference\b", re.I)
_SIGNED = re.compile(r"\bchange|increase|decrease|decline|growth", re.I)
_NIL = frozenset({"-", "—", "–"})
_PLAIN_CHANGE = re.compile(
    r"what (?:is|was) the (?:percentage )?(?:change|difference) (?:in|of)\b(?!.*\band\b)", re.I
)
"""A change asked of one row with no year ("What was the change in closing cash?"): over a
table's two years, as no other wording of it was right on dev."""
_YEAR_AVERAGE = re.compile(r"\b((?:19|20)\d\d) average\b", re.I)
"""A year's average balance, "the 2019 average X": the mean of its figure and the year
before's (its opening and closing balance)."""


@dataclass(frozen=True)
class Worked:
    """The operation a question asks, the row and the cells (column, figure) it is worked
    on, and its value."""

    operation: Operation
    label: str
    cells: list[tuple[str, str]]
    value: float
    scale: str
    percent: bool
    """Whether the cells are percentages (their change is in points of them)."""

    def figure(self) -> str:
        """The value as a figure: ``12.34%`` for a percentage change or a change of
        percentages, else ``-1,234`` (``1,234.50``), with no scale."""
        if self.operation in ("percent change", "share") or self.percent:
            return f"{self.value:.2f}%"
        if self.operation == "ratio":
            return f"{self.value:.2f}"
        return f"{self.value:,.0f}" if self.value == round(self.value) else f"{self.value:,.2f}"

    def answer(self) -> str:
        """The value as a report states one: the figure with its table's scale
        (``-1,234 thousand``), a percentage as it is."""
        if self.operation in ("percent change", "share", "ratio") or self.percent:
            return self.figure()
        return f"{self.figure()} {self.scale}".strip()

    def shown(self) -> str:
        """How it was worked, for a person to check: ``(b - a) / a × 100`` over the row."""
        figures = [f for _, f in self.cells]
        match self.operation:
            case "percent change":
                how = f"({figures[-1]} - {figures[0]}) / {figures[0]} × 100"
            case "change":
                how = f"{figures[-1]} - {figures[0]}"
                if self.value == _number(figures[0]) - _number(figures[-1]):
                    how = f"{figures[0]} - {figures[-1]}"
            case "average":
                how = f"({' + '.join(figures)}) / {len(figures)}"
            case "sum":
                how = " + ".join(figures)
            case "share":
                how = f"{' + '.join(figures[:-1])} / {figures[-1]} × 100"
            case "ratio":
                how = f"{' + '.join(figures[:-1])} / {figures[-1]}"
        columns = ", ".join(c for c, _ in self.cells)
        return f"{self.operation} of {self.label!r} ({columns}): {how} = {self.answer()}"


def _number(cell: str) -> float:
    if cell.strip() in _NIL:
        return 0.0
    value = number_of(cell)
    return 0.0 if value is None else value


def operation_of(question: str) -> Operation | None:
    """The operation ``question`` asks for by its words, or None (none, or a share of one
    row in another)."""
    if _SHARE.search(question) or _NOT_ARITHMETIC.search(question):
        return None
    return next((op for op, words in _OPERATIONS if words.search(question)), None)


def _years(question: str, operation: Operation) -> list[str]:
    """The years whose columns are worked: those the question gives ("FY19" is 2019), or
    every year of a span it gives an average or a sum over ("from 2017 to 2019")."""
    span = SPAN.search(question)
    opening = _YEAR_AVERAGE.search(question)
    if opening and operation == "average":
        return [str(int(opening.group(1)) - 1), opening.group(1)]
    if span and operation in ("average", "sum"):
        first, last = int(span.group(1)), int(span.group(2))
        if first < last:
            return [str(y) for y in range(first, last + 1)]
    return years_named(question)


def _parts(words: str, documents: Mapping[str, str]) -> list[Named]:
    """The rows the part of a share names: one, or two it names apart ("the sum of A and B",
    "land and leasehold improvements") when each says every word of its row's label."""
    both = _TWO.fullmatch(words)
    if both:
        two = [row_named(both[k], documents) for k in ("a", "b")]
        if all(
            n is not None and not extra_words(n.row[0], both[k])
            for n, k in zip(two, "ab", strict=True)
        ):
            first, second = (n for n in two if n is not None)
            if first.row != second.row:
                return [first, second]
    one = row_named(words, documents)
    return [] if one is None else [one]


def _share(question: str, documents: Mapping[str, str]) -> Worked | None:
    """One row's figure as a share of (or a ratio to) another's, in the one year the
    question gives, when it is asked in one of the `_SHARES` forms."""
    years = _years(question, "share")
    if len(years) != 1 or _NOT_ARITHMETIC.search(question):
        return None
    body = _TRAILING.sub("", YEAR.sub(" ", question).strip().rstrip("?").strip())
    for operation, form in _SHARES:
        asked = form.fullmatch(body)
        if asked is None:
            continue
        whole = row_named(asked["whole"] or asked["of"], documents)
        parts = _parts(asked["part"], documents)
        if whole is None or not parts or any(p.row == whole.row for p in parts):
            return None
        cells: list[tuple[str, str]] = []
        for _, _, table, row in (*parts, whole):
            at = column(table, years[0], len(row))
            if at is None or number_of(row[at]) is None:
                return None
            cells.append((table.header[at], row[at].strip()))
        *a, b = (_number(f) for _, f in cells)
        if b == 0:
            return None
        value = sum(a) / b * 100 if operation == "share" else sum(a) / b
        label = f"{' + '.join(p.row[0].strip() for p in parts)} / {whole.row[0].strip()}"
        return Worked(operation, label, cells, round(value, 2), "", operation == "share")
    return None


def worked(question: str, documents: Mapping[str, str]) -> Worked | None:
    """The arithmetic ``question`` asks of the documents' tables, worked; None when its
    words name no operation, two rows match it alike, or a year it gives has no column."""
    if _SHARE.search(question):
        return _share(question, documents)
    operation = operation_of(question)
    if operation is None:
        return None
    named = row_named(question, documents)
    if named is None:
        return None
    _, source, table, row = named
    years = _years(question, operation)
    if not years and operation in ("average", "change", "percent change"):
        years = every_year(table, len(row))  # "What is the average cost of sales?"
        if operation != "average" and (len(years) != 2 or not _PLAIN_CHANGE.match(question)):
            return None  # "What was the change in closing cash?" over two years only
    if len(years) < 2:
        return None
    cells: list[tuple[str, str]] = []
    for year in years:
        at = column(table, year, len(row))
        if at is None or (number_of(row[at]) is None and row[at].strip() not in _NIL):
            return None
        cells.append((table.header[at], row[at].strip()))
    figures = [_number(f) for _, f in cells]
    first, last = figures[0], figures[-1]
    match operation:
        case "percent change":
            if first == 0 or len(figures) != 2:
                return None
            value = (last - first) / first * 100
        case "change":
            if len(figures) != 2:
                return None
            value = first - last if _BY.search(question) else last - first
            if _DIFFERENCE.search(question) and not _SIGNED.search(question):
                value = abs(value)
        case "average":
            value = sum(figures) / len(figures)
        case "sum":
            value = sum(figures)
    percent = all(f.endswith("%") for _, f in cells) or in_percent(row[0], [c for c, _ in cells])
    scale = "" if percent else scale_of(cells[0][1], source, documents) or document_scale(documents)
    return Worked(operation, row[0].strip(), cells, round(value, 2), scale, percent)
