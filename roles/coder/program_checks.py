"""What a program that ran and wrote its outputs may still have got wrong, read from its
code: a result written in as a literal rather than computed, and inputs read that
``inputs.json`` does not hold (a ``.get(name, 0)`` then computes with a made-up 0). And
whether two programs are one: the same code, or nearly, differently commented, is no
independent check. Pure functions of the code, the outputs and the goal, so a re-run says the same.

All three are from the dev suite's runs (Qwen2.5-Coder-1.5B): a program that wrote
``answer = "There are 7841 prime numbers below 10000."``, one that read
``inputs.get('initial_amount', 0)`` from an empty ``inputs.json`` and "verified" 0.0 with a
second that did the same, and a tie broken by a third program identical to the first.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from pydantic import JsonValue
from rapidfuzz import fuzz

from roles.verifier.values import numbers

__all__ = [
    "NEARLY_SAME",
    "floored",
    "inputs_hint",
    "missing_inputs",
    "same_program",
    "unchecked_problem",
    "written_in",
]


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _literals(tree: ast.Module) -> set[float]:
    """Every number the code writes: numeric constants and numbers inside its strings."""
    found: set[float] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant):
            continue
        value = node.value
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            found.add(float(value))
        elif isinstance(value, str):
            found |= set(numbers(value))
    return found


def _telling(value: float) -> bool:
    """Whether a number is unlikely to be in a program by chance (not a small count)."""
    return not (value.is_integer() and abs(value) <= 10)


def written_in(code: str, outputs: Mapping[str, JsonValue], quoted: frozenset[float]) -> list[str]:
    """The outputs the code writes as literals, results worked out outside the program: an
    answer that is one of its strings and states a number the goal does not, or whose every
    such number (small counts aside) the code writes."""
    tree = _parse(code)
    if tree is None:
        return []
    literals = _literals(tree)
    strings = {
        n.value.strip()
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    hard = []
    for name, value in outputs.items():
        stated = [f for f in numbers(value) if f not in quoted]
        if isinstance(value, str) and stated and value.strip() in strings:
            hard.append(name)  # the whole answer, numbers and all, is one string in the code
            continue
        results = [f for f in stated if _telling(f)]
        if results and all(r in literals for r in results):
            hard.append(name)
    return hard


def _input_keys(tree: ast.Module, names: set[str]) -> set[str]:
    """Keys the code reads from a variable named in ``names`` (``x["k"]``, ``x.get("k")``)."""
    keys: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            keys.add(node.slice.value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in names
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            keys.add(node.args[0].value)
    return keys


def _loads(node: ast.AST) -> set[str]:
    """The names ``node`` binds to a ``….load(…)`` call (``x = json.load(…)``)."""
    if (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "load"
    ):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()


def _loaded_from_inputs(tree: ast.Module) -> set[str]:
    """Names bound to ``json.load(...)`` of inputs.json (``inputs = json.load(open(...))``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and "inputs.json" in ast.unparse(node.value):
            names |= _loads(node)
        elif isinstance(node, ast.With) and "inputs.json" in ast.unparse(
            node.items[0].context_expr
        ):  # with open("inputs.json") as f: x = json.load(f)
            names |= {n for inner in ast.walk(node) for n in _loads(inner)}
    return names


def missing_inputs(code: str, inputs: Mapping[str, JsonValue]) -> list[str]:
    """The keys the code reads from inputs.json that inputs.json does not hold."""
    tree = _parse(code)
    if tree is None:
        return []
    names = _loaded_from_inputs(tree) | _prelude_inputs(tree)
    return sorted(_input_keys(tree, names) - set(inputs)) if names else []


def _prelude_inputs(tree: ast.Module) -> set[str]:
    """``inputs`` when the code reads it without binding it (the runner's prelude defines it)."""
    bound = any(
        isinstance(n, ast.Name) and n.id == "inputs" and isinstance(n.ctx, ast.Store)
        for n in ast.walk(tree)
    )
    return set() if bound else {"inputs"}


def _absent(absent: list[str], inputs: Mapping[str, JsonValue]) -> str:
    held = ", ".join(sorted(inputs)) if inputs else "nothing: it is {}"
    return (
        f"The program reads {', '.join(map(repr, absent))} from inputs.json, which holds "
        f"{held}; a default in its place computes with a made-up value. Take every value "
        "the task's inputs do not hold from the goal's own text, written into the program."
    )


def inputs_hint(code: str, inputs: Mapping[str, JsonValue]) -> str:
    """For a program that failed: a hint naming the inputs it read that are not there."""
    absent = missing_inputs(code, inputs)
    return f"\nHint: {_absent(absent, inputs)}" if absent else ""


def unchecked_problem(
    code: str,
    outputs: Mapping[str, JsonValue],
    inputs: Mapping[str, JsonValue],
    quoted: frozenset[float],
) -> str:
    """Why outputs a program wrote cannot be taken, for the model to fix ("" when none)."""
    absent = missing_inputs(code, inputs)
    if absent:
        return _absent(absent, inputs)
    hard = written_in(code, outputs, quoted)
    if hard:
        shown = "; ".join(f"{n} = {str(outputs[n])[:120]}" for n in hard)
        return (
            f"The program does not compute its result: it writes it in as a literal ({shown}). "
            "A value worked out outside the program is not checked by running it. Compute "
            "every value in the program, from the goal's values, and write what it computed."
        )
    return ""


_FRACTIONAL = frozenset({"log", "log2", "log10", "log1p", "sqrt", "exp", "float"})
"""Functions whose value is a fraction: a divisor made by one is no whole number."""


def _fractional(node: ast.expr) -> bool:
    """Whether an expression is a fraction by its form: a float literal, a true division, or
    a call of `_FRACTIONAL` (``math.log(limit)``, ``log(x)``)."""
    match node:
        case ast.Constant(value=float()) | ast.BinOp(op=ast.Div()):
            return True
        case ast.Call(func=ast.Name(id=name)) | ast.Call(func=ast.Attribute(attr=name)):
            return name in _FRACTIONAL
    return False


def floored(code: str) -> list[str]:
    """The floor divisions by a fraction the code makes, as written (``limit //
    math.log(limit)``): a whole number where a quotient was meant."""
    tree = _parse(code)
    if tree is None:
        return []
    return [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.FloorDiv)
        and _fractional(node.right)
    ]


NEARLY_SAME = 85.0
"""How alike (0-100, rapidfuzz's ratio) two programs' computations may be before they count
as one. In the dev suite's runs (1.5B, 1667e1e), the first two programs of 21 of 28 cases
were 38-82 alike; fibonacci-40's two, one off-by-one loop with the result printed or
written, were 100 alike once the writing was set aside (87 with it)."""


def _io(node: ast.stmt) -> bool:
    """A top-level statement that imports, loads the inputs or writes the result: what
    every program of a task shares, whatever it computes."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    text = ast.unparse(node)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return text.startswith(("print(", "json.dump("))
    if isinstance(node, ast.Assign | ast.With):
        return "inputs.json" in text or "outputs.json" in text or text.endswith("= {}")
    return False


def _text(code: str) -> str | None:
    """The computation of a program: its code less `_io`, comments and layout."""
    tree = _parse(code)
    if tree is None:
        return None
    tree.body = [n for n in tree.body if not _io(n)]
    return ast.unparse(tree)


def same_program(a: str, b: str) -> bool:
    """Whether two programs are one computation: their code, comments and layout set aside,
    is the same or nearly (`NEARLY_SAME`). A program whose whole computation sits inside
    what it prints or writes is compared whole with another such (both less `_io` are empty)."""
    ta, tb = _text(a), _text(b)
    if ta is None or tb is None:
        return False
    if not ta and not tb:  # both compute only inside what they print or write
        ta, tb = ast.unparse(ast.parse(a)), ast.unparse(ast.parse(b))
    return fuzz.ratio(ta, tb) >= NEARLY_SAME
