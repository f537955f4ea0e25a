"""What the coder tells its model after a program ran and did not give the task's outputs:
what ran, its exit code, the tails of its output, which outputs are missing and where the
program wrote instead, and hints for the structural mistakes small models make (a
``main()`` never called, ``input()`` with no input, the inputs never loaded, a function such
as ``gcd`` called without its import or hidden by a variable, a wrong file name). Pure functions of the code and the sandbox's result, so a re-run phrases them alike.
"""

from __future__ import annotations

import ast
import importlib
import re

from sandbox.result import ExecutionResult

__all__ = ["code_hints", "describe_run"]

_TAIL = 1500
_NAME_ERROR = re.compile(r"NameError: name '([^']+)' is not defined")
_NO_SUCH_NAME = re.compile(r"ImportError: cannot import name '([^']+)' from '([^']+)'")


def _tail(text: str, n: int = _TAIL) -> str:
    text = text.strip()
    return text if len(text) <= n else "…" + text[-n:]


def describe_run(run: ExecutionResult, outputs: list[str]) -> str:
    """What happened when the program ran, for a model that has to fix it."""
    lines = [f"The program ran and exited with code {run.exit_code}."]
    lines.append(f"stdout: {_tail(run.stdout)!r}" if run.stdout.strip() else "stdout: (empty)")
    if run.stderr.strip():
        lines.append(f"stderr (end):\n{_tail(run.stderr)}")
    written = sorted(n for n in run.files if n != "inputs.json")
    if outputs:
        lines.append(f"The task needs outputs.json holding the keys {outputs}.")
    if written:
        lines.append(f"Files it wrote: {', '.join(written)}.")
    else:
        lines.append("It wrote no files.")
    return "\n".join(lines)


def _defined_not_called(tree: ast.Module) -> list[str]:
    """Functions defined at module level and never called anywhere in the program, when
    nothing at module level calls anything (the program then does nothing)."""
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return [name for name in defined if name not in called]


def _calls(tree: ast.Module, name: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
        for n in ast.walk(tree)
    )


_HOMES = ("math", "statistics", "itertools", "functools", "collections", "fractions", "calendar")
"""Standard-library modules whose functions small models call without importing them."""


def _home_of(name: str) -> str | None:
    """The module among `_HOMES` that defines ``name`` (a function or class), if any."""
    for module in _HOMES:
        value = getattr(importlib.import_module(module), name, None)
        defined = str(getattr(value, "__module__", "") or "").lstrip("_")
        if callable(value) and defined == module and not name.startswith("_"):
            return module  # its own, not one it imports (statistics imports Counter)
    return None


def _assigned(tree: ast.Module, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(tree)
    )


def _shadowed(tree: ast.Module) -> list[str]:
    """Names the program both assigns and calls (``gcd = gcd(a, b)``)."""
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return sorted(n for n in called if _assigned(tree, n))


def code_hints(code: str, run: ExecutionResult, outputs: list[str]) -> list[str]:
    """Hints for structural mistakes seen in ``code`` and its run ([] when none applies)."""
    hints: list[str] = []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return hints
    idle = _defined_not_called(tree)
    if idle and not run.stdout.strip() and "outputs.json" not in run.files:
        names = ", ".join(f"{n}()" for n in idle)
        hints.append(
            f"{names} is defined but never called, so nothing ran: call it at the end of the "
            "program (or write the code at module level)."
        )
    if _calls(tree, "input") or "EOFError" in run.stderr:
        hints.append(
            "input() gets no input here: read the task's values from inputs.json with "
            'inputs = json.load(open("inputs.json")).'
        )
    if "sys.argv" in code:
        hints.append("There are no command-line arguments: read the values from inputs.json.")
    missing = _NAME_ERROR.search(run.stderr)
    if missing and missing.group(1) == "inputs":
        hints.append(
            'Load the inputs before using them: import json; inputs = json.load(open("inputs.json")).'
        )
    elif missing and (home := _home_of(missing.group(1))) is not None:
        name = missing.group(1)
        hint = f"{name} is not a built-in: it is {home}.{name}; write `from {home} import {name}`."
        if _assigned(tree, name):
            hint += f" Do not also name a variable {name}: that hides the function."
        hints.append(hint)
    if absent := _NO_SUCH_NAME.search(run.stderr):
        name, module = absent.groups()
        hints.append(
            f"{module} has no {name} here, however often it is imported: do not import it "
            f"again. Write {name} yourself from its definition, or compute what the task "
            "needs another way."
        )  # a live 1.5B estimate imported li from scipy.special on six attempts
    if "object is not callable" in run.stderr:
        for name in _shadowed(tree):
            hints.append(
                f"{name} is given a value (`{name} = ...`) and also called as {name}(...): the "
                f"value hides the function. Name the value something else, e.g. {name}_value."
            )
    others = sorted(
        n for n in run.files if n not in ("inputs.json", "outputs.json") and n.endswith(".json")
    )
    if outputs and "outputs.json" not in run.files and others:
        hints.append(
            f"It wrote {', '.join(others)} but the outputs must go to outputs.json "
            f"(one JSON object with the keys {outputs})."
        )
    if outputs and "outputs.json" not in run.files and not _calls(tree, "dump") and not others:
        hints.append(
            f'Write the outputs at the end: json.dump({{"{outputs[0]}": ...}}, '
            'open("outputs.json", "w")).'
        )
    return hints
