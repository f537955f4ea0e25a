"""The program protocol a small model cannot get wrong: before the program runs, the runner
defines ``inputs`` (and each input value under its own name), teaches ``json`` to write
dates, decimals, fractions, sets and numpy values, and puts the goal's documents beside
it as files. A program that forgets to load ``inputs.json``, prints its answer, or returns
a ``date`` still runs; one that does everything itself is unchanged.

The definitions come from one line put before the program (`wrapped`); the line numbers
of its errors are shifted back (`unwrapped`), so the model reads its own lines. A program
that ends on a bare dict, as a notebook cell would (``{"answer": f"..."}``: four of eleven
programs of a live 1.5B report task), has that dict written as ``outputs.json`` when it
wrote none itself; one that leaves its outputs in variables of their names and writes or
prints nothing (a live 1.5B goal check set ``independent_answer`` and stopped) has them
written to `NAMED`.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import json
import keyword
import re
from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from roles.execution import ExecutionResult

__all__ = [
    "LINE",
    "NAMED",
    "PRELUDE",
    "PRELUDE_FILE",
    "files_for",
    "given_values",
    "quoted_documents",
    "unwrapped",
    "wrapped",
]

PRELUDE_FILE = "society_prelude.py"
"""The module the runner puts in the working folder."""

LINE = f"from {PRELUDE_FILE.removesuffix('.py')} import *  # noqa\n"
"""What is put before the program."""

PRELUDE = '''"""Defined for the program before it runs: inputs, and JSON for more types."""
import datetime as _dt
import decimal as _dec
import fractions as _fr
import json as _json


def _default(self, o):
    if isinstance(o, (_dt.datetime, _dt.date, _dt.time)):
        return o.isoformat()
    if isinstance(o, _dt.timedelta):
        return o.total_seconds()
    if isinstance(o, (_dec.Decimal, _fr.Fraction)):
        return float(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o, key=str)
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


_json.JSONEncoder.default = _default
try:
    with open("inputs.json", encoding="utf-8") as _f:
        inputs = _json.load(_f)
except (OSError, ValueError):
    inputs = {}
NAMES = %s
globals().update({_k: inputs[_k] for _k in NAMES if _k in inputs})
__all__ = ["inputs", *NAMES]


OUTPUTS = %s


def _last_dict():
    import __main__
    import os

    last = getattr(__main__, "%s", None)
    if isinstance(last, dict) and not os.path.exists("outputs.json"):
        with open("outputs.json", "w", encoding="utf-8") as f:
            _json.dump(last, f)


def _named():
    import __main__
    import os

    if not OUTPUTS or os.path.exists("outputs.json") or set(OUTPUTS) & set(NAMES):
        return
    held = {k: getattr(__main__, k) for k in OUTPUTS if hasattr(__main__, k)}
    if len(held) == len(OUTPUTS):
        try:
            text = _json.dumps(held)
        except (TypeError, ValueError):
            return
        with open("%s", "w", encoding="utf-8") as f:
            f.write(text)


import atexit as _atexit

_atexit.register(_named)
_atexit.register(_last_dict)  # run first: a closing dict is the program's own outputs.json
'''

LAST = "_society_last_dict"
"""The name a program's closing bare dict is given (`wrapped`), for the prelude to write."""
NAMED = ".society_named.json"
"""Where the prelude writes the variables named like the task's outputs of a program that
wrote no ``outputs.json`` (read only when it printed nothing either: `read_outputs`)."""

_LINE_NO = re.compile(r'(File "main\.py", line )(\d+)')


def _names(inputs: Mapping[str, JsonValue]) -> list[str]:
    """Input names that can be variables without hiding a builtin or a keyword."""
    return sorted(
        k
        for k in inputs
        if k.isidentifier()
        and not keyword.iskeyword(k)
        and not hasattr(builtins, k)
        and not k.startswith("_")
        and k != "inputs"
    )


def files_for(
    inputs: Mapping[str, JsonValue],
    documents: Mapping[str, str] | None = None,
    outputs: Sequence[str] = (),
) -> dict[str, bytes]:
    """The working folder's files: ``inputs.json``, the prelude (told the task's
    ``outputs``), and the documents."""
    prelude = PRELUDE % (repr(_names(inputs)), repr(list(outputs)), LAST, NAMED)
    files = {
        "inputs.json": json.dumps(dict(inputs), ensure_ascii=False).encode(),
        PRELUDE_FILE: prelude.encode(),
    }
    for name, text in (documents or {}).items():
        if name not in files:
            files[name] = text.encode()
    return files


def wrapped(code: str) -> str:
    """The program as it runs: the prelude's line first, and a closing bare dict named
    `LAST` (on its own first line, so every line keeps its number)."""
    if code.startswith(LINE):
        return code
    try:
        body = ast.parse(code).body
    except SyntaxError:
        body = []
    last = body[-1] if body else None
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Dict) and not last.col_offset:
        lines = code.splitlines(keepends=True)
        at = last.lineno - 1
        lines[at] = f"{LAST} = {lines[at]}"
        code = "".join(lines)
    return LINE + code


def unwrapped(run: ExecutionResult) -> ExecutionResult:
    """The run as its own code would report it: line numbers of ``main.py`` one less, and
    the prelude module left out of the files it wrote."""

    def back(m: re.Match[str]) -> str:
        return f"{m.group(1)}{max(1, int(m.group(2)) - 1)}"

    files = {k: v for k, v in run.files.items() if k != PRELUDE_FILE}
    return dataclasses.replace(run, stderr=_LINE_NO.sub(back, run.stderr), files=files)


def given_values(inputs: Mapping[str, JsonValue], limit: int = 4000) -> str:
    """The task's values as the program finds them defined, one Python line each."""
    if not inputs:
        return "Values given: none (inputs is {})."
    lines = []
    for name, value in inputs.items():
        if isinstance(value, str) and "\n" in value:
            line = f'{name} = """\\\n{value.rstrip()}\n"""'
        else:
            line = f"{name} = {value!r}"
        lines.append(line if name in _names(inputs) else f"inputs[{name!r}] = {value!r}")
    text = "\n".join(lines)
    if len(text) > limit:
        text = text[:limit] + "\n# ... (cut here; inputs.json holds all of it)"
    return f"Values given, already defined before your program runs:\n```python\n{text}\n```"


def quoted_documents(documents: Mapping[str, str], limit: int) -> list[str]:
    """The documents' text for the prompt (each also a file in the working folder)."""
    parts, left = [], limit
    for name, text in documents.items():
        shown = (
            text if len(text) <= left else text[: max(0, left)] + "\n[... the rest is in the file]"
        )
        parts.append(f"Document {name} (the file {name} in the working folder):\n{shown}")
        left -= len(text)
    return parts
