"""A worked answer's arithmetic done again by code: the equations a prose view writes
("262 / 7,250 × 100 = 3.68%", LaTeX's ``\\frac`` and ``\\times`` among them) evaluated
exactly, each result that is wrong at the decimals it states corrected, and the correction
carried into the equations after it and into the final value.

A 1.5B model picks the right figures and then divides wrong: on TAT-QA dev it wrote
262 / 7,250 = 0.0368 (it is 0.0361) in both of one question's worked answers, which then
agreed on a wrong percentage. A calculator is what a person checking the working would use;
it changes no figure the model chose, only what the arithmetic on them gives.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Fix", "recomputed"]


@dataclass(frozen=True)
class Fix:
    """One result corrected: the working as written, what it claimed, what it gives."""

    working: str
    claimed: str
    value: float

    def shown(self) -> str:
        return f"{self.working} = {_format(self.value, self.claimed)}, not {self.claimed}"


_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX = (
    (re.compile(r"\\(?:times|cdot|ast)\b|[×·⋅∗]"), " * "),
    (re.compile(r"\\div\b|÷"), " / "),
    (re.compile(r"\\approx\b|\\simeq\b|[≈≃≅]"), " = "),
    (re.compile(r"\\(?:left|right)\b|\\[\[\]()]|\\[,;!]|\\?\$"), " "),
    (re.compile(r"\\text\{([^{}]*)\}"), r" \1 "),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"−|(?<= )–(?= )"), "-"),
    (re.compile(r"(?<=\d)\s*[xX]\s*(?=\d)"), " * "),
    (re.compile(r"\{"), "("),
    (re.compile(r"\}"), ")"),
)
_RUN = re.compile(r"[-+*/()%.,\d \t=]+")
"""A stretch of arithmetic: figures, operators, brackets and equals signs, on one line."""
_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+")
_TOKEN = re.compile(rf"\s*(?:(?P<figure>{_FIGURE.pattern})(?P<percent>%?)|(?P<op>[-+*/()]))")
_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def recomputed(reply: str, value: str) -> tuple[str, list[Fix]]:
    """``value`` (the final value read from ``reply``) with every figure in it that the
    reply's equations computed wrong replaced by what they give, and the fixes made; as it
    is when the arithmetic holds or none can be read."""
    fixes: dict[str, Fix] = {}
    for line in _plain(reply).splitlines():
        for run in _RUN.findall(line):
            _check(run, fixes)
    if not fixes:
        return value, []
    used: list[Fix] = []

    def fixed(m: re.Match[str]) -> str:
        fix = fixes.get(m.group(0).replace(",", ""))
        if fix is None:
            return m.group(0)
        used.append(fix)
        return _format(fix.value, m.group(0))

    answer = re.sub(rf"(?<![\w.]){_FIGURE.pattern}", fixed, value)
    return answer, used


def _plain(reply: str) -> str:
    """LaTeX's arithmetic as plain operators (``\\frac{a}{b}`` is ``(a)/(b)``)."""
    text = reply
    while (changed := _FRAC.sub(r"((\1)/(\2))", text)) != text:
        text = changed
    for pattern, replacement in _LATEX:
        text = pattern.sub(replacement, text)
    return text


def _check(run: str, fixes: dict[str, Fix]) -> None:
    """One chain ``expression = … = figure``: its first expression is the truth, and each
    figure after it that disagrees is a fix (its later uses worked with the truth)."""
    parts = [p.strip() for p in run.split("=")]
    if len(parts) < 2:
        return
    truth: float | None = None
    working = ""
    for part in parts:
        tokens = _tokens(part)
        if tokens is None:
            truth = None
            continue
        if len(tokens) == 1 and tokens[0][0] == "figure":
            claimed = tokens[0][1]
            if truth is not None and not _holds(truth, claimed):
                fixes[_bare(claimed)] = Fix(working, claimed.rstrip("%"), _scaled(truth, claimed))
            continue
        if truth is None and (found := _evaluate(tokens, fixes)) is not None:
            truth, working = found, _tidy(part)


def _tidy(part: str) -> str:
    """An expression as a person writes it: ``(23 / 772) * 100``."""
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(part.split())))


def _tokens(part: str) -> list[tuple[str, str]] | None:
    """``part`` as figures and operators, or None when it is anything else (words, a
    comma between figures, a percentage inside a computation other than ``100%``)."""
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(part):
        m = _TOKEN.match(part, at)
        if m is None or m.end() == at:
            return None if part[at:].strip() else tokens or None
        at = m.end()
        if m.group("op"):
            tokens.append(("op", m.group("op")))
        else:
            tokens.append(("figure", m.group("figure") + m.group("percent")))
    if not tokens:
        return None
    operators = any(kind == "op" and t not in "()" for kind, t in tokens)
    if operators and any(t.endswith("%") and _bare(t) != "100" for k, t in tokens if k == "figure"):
        return None
    return tokens


def _evaluate(tokens: list[tuple[str, str]], fixes: dict[str, Fix]) -> float | None:
    """What an expression gives, each figure an earlier fix corrected taken at its value;
    None when it computes nothing (one figure) or does not parse."""
    if not any(kind == "op" and t not in "()" for kind, t in tokens):
        return None
    source = []
    for kind, t in tokens:
        if kind == "op":
            source.append(t)
            continue
        bare = _bare(t)
        fix = fixes.get(bare)
        source.append(repr(fix.value) if fix and bare != "100" else bare)
    try:
        tree = ast.parse(" ".join(source), mode="eval")
        return _value(tree.body)
    except (SyntaxError, ZeroDivisionError, ValueError, RecursionError):
        return None


def _value(node: ast.expr) -> float:
    match node:
        case ast.Constant(value=int() | float() as v):
            return float(v)
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _OPERATORS:
            return _OPERATORS[type(op)](_value(left), _value(right))
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -_value(operand)
        case ast.UnaryOp(op=ast.UAdd(), operand=operand):
            return _value(operand)
    msg = "not arithmetic"
    raise ValueError(msg)


def _bare(figure: str) -> str:
    return figure.replace(",", "").rstrip("%")


def _decimals(figure: str) -> int:
    bare = _bare(figure)
    return len(bare.split(".")[1]) if "." in bare else 0


def _scaled(truth: float, claimed: str) -> float:
    """The truth as the claim states it: a percentage claimed of a fraction is the fraction
    times 100 (``262 / 7,250 = 3.68%``)."""
    claim = float(_bare(claimed))
    if claimed.endswith("%") and abs(truth * 100 - claim) < abs(truth - claim):
        return truth * 100
    return truth


def _holds(truth: float, claimed: str) -> bool:
    """Whether ``claimed`` is ``truth`` rounded to the decimals it states, or its percentage
    (1085 for 1085.74 is not: a whole number where the working gives decimals is cut)."""
    claim = float(_bare(claimed))
    half = 0.5 * 10.0 ** -_decimals(claimed)
    return abs(_scaled(truth, claimed) - claim) <= half * (1 + 1e-6)


def _format(value: float, like: str) -> str:
    """``value`` written as ``like`` is (thousands separators), with its decimals but at
    least two unless whole: a report states a percentage to two places."""
    places = 0 if abs(value - round(value)) < 1e-9 else max(_decimals(like), 2)
    return f"{value:,.{places}f}" if "," in like else f"{value:.{places}f}"
