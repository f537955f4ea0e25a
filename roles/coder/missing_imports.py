"""Imports a program uses and never wrote: added before it runs.

Small models write ``json.dump(...)`` or ``datetime.date(...)`` and forget the import, then
"fix" the program by swapping one import for the other (dev suite, moon-landing-weekday:
six runs, one NameError). A name used only as ``name.attribute``, bound nowhere in the
program, that is a standard-library module (or ``np``/``pd`` for the sandbox's numpy and
pandas) can only mean that module: importing it changes nothing else the program does.
Likewise a bare name bound nowhere that only ``math`` holds (``log(x)``, ``sqrt(n)``: live
1.5B quickstart, ``NameError: log``) is imported from it.
"""

from __future__ import annotations

import ast
import builtins
import math
import sys

__all__ = ["with_imports"]

_ALIASES = {"np": "numpy", "pd": "pandas"}
_MATH = frozenset(n for n in dir(math) if not n.startswith("_"))


def _bound(tree: ast.AST) -> set[str]:
    """Every name the program binds anywhere (assignments, imports, definitions, arguments)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        match node:
            case ast.Name(ctx=ast.Store() | ast.Del()):
                names.add(node.id)
            case ast.Import() | ast.ImportFrom():
                for alias in node.names:
                    names.add((alias.asname or alias.name).split(".")[0])
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                names.add(node.name)
            case ast.arg():
                names.add(node.arg)
            case ast.ExceptHandler(name=str() as name):
                names.add(name)
            case ast.Global() | ast.Nonlocal():
                names.update(node.names)
            case ast.MatchAs(name=str() as name) | ast.MatchStar(name=str() as name):
                names.add(name)
    return names


def with_imports(code: str, available: frozenset[str] | None = None) -> tuple[str, list[str]]:
    """``code`` with the imports it uses and lacks put first, and those import lines
    (``available``: the sandbox's extra libraries; ``None``: numpy and pandas are assumed
    absent). Code that does not parse is returned as it is."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    if any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in tree.body):
        return code, []
    bases = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    as_base = {n.id for n in loads if id(n) in bases}
    bare = {n.id for n in loads if id(n) not in bases}
    bound = _bound(tree) | set(dir(builtins))
    attribute_only = as_base - bare - bound
    lines = []
    if from_math := sorted((bare - as_base - bound) & _MATH):
        lines.append(f"from math import {', '.join(from_math)}")
    for name in sorted(attribute_only):
        if name in sys.stdlib_module_names and not name.startswith("_"):
            lines.append(f"import {name}")
        elif name in _ALIASES and available is not None and _ALIASES[name] in available:
            lines.append(f"import {_ALIASES[name]} as {name}")
    if not lines:
        return code, []
    return "\n".join(lines) + "\n" + code, lines
