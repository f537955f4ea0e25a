"""What the benches share: bench/ kept off the import path, the ``--short`` mode, a layered
scripted scenario, a child's resource usage and the check a cited answer carries.

A bench run as a script has bench/ first on the path, so it imports this as ``common``, first
of all: importing it drops bench/ from the path (bench/bus.py and bench/sandbox.py would
shadow the packages of those names), so the imports after it find the real packages.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import roles.coder  # noqa: E402  (the coder registers with its wing)
import roles.registry  # noqa: E402, F401  (every bench process knows the built-in roles)
from bus.verdicts import CheckVerdict  # noqa: E402

SHORT_HELP = "seconds, not minutes: small sizes, to check the bench runs"


def parse(parser: argparse.ArgumentParser, short: dict[str, Any]) -> argparse.Namespace:
    """The command line, with a ``--short`` flag: a run of seconds that checks the bench works
    and prints its figures (too small to judge them by; tests/bench runs every bench so) with
    the sizes ``short``; flags given on the command line still win."""
    parser.add_argument("--short", action="store_true", help=SHORT_HELP)
    args = parser.parse_args()
    if args.short:
        parser.set_defaults(**short)
        args = parser.parse_args()
    return args


CORPUS = "questions.md"
"""The document the layered scenario's researcher reads and cites (`write_layered`)."""


def layered_scenario(
    name: str,
    tasks: int,
    width: int,
    *,
    wall_s: int,
    roles: list[str],
    researcher: str,
    answer: Callable[[int], str],
) -> str:
    """A scripted scenario of ``tasks`` researcher tasks in layers of ``width``, each depending
    on one of the layer before; ``roles`` are its other lines under ``roles:``,
    ``researcher`` the researcher's settings besides its corpus, and ``answer(i)`` the
    fields of task i's scripted answer, matched to its task, so any order of calls works.

    It takes the live path with its settings stated: the first plan is the scripted one (not
    one coding task) and gets no goal check (no coder here), and each answer cites the document it read (`CORPUS`, written beside
    the scenario by `write_layered`), so the run ends ``succeeded``: the benches measure
    scheduling, not verification."""
    lines = [
        f"name: {name}",
        "goal: {text: Answer many small questions.}",
        "models: {default: {provider: scripted}}",
        f"budgets: {{wall_s: {wall_s}, calls: {tasks * 2 + 50}}}",
        "roles:",
        "  planner: {one_task_first: false}",
        "  manager: {goal_check: false}",
        f"  researcher: {{corpus: [{CORPUS}], {researcher}}}",
        *(f"  {line}" for line in roles),
        "script:",
        "  planner:",
        "    - answer:",
        "        success_criteria: [all answered]",
        "        tasks:",
    ]
    for i in range(tasks):
        deps = f", depends_on: [t{i - width}]" if i >= width else ""
        lines.append(
            f"          - {{id: t{i}, role: researcher, description: Answer question {i}., "
            f"outputs: [o{i}]{deps}}}"
        )
    lines.append("  researcher:")
    lines += [f"    - {{match: 'Your task \\(t{i}\\)', {answer(i)}}}" for i in range(tasks)]
    return "\n".join(lines) + "\n"


def write_layered(path: Path, scenario: str) -> None:
    """Write a `layered_scenario` to ``path`` and its document beside it."""
    path.write_text(scenario)
    text = "Each question has one answer; the answer to question i is i.\n"
    (path.parent / CORPUS).write_text(text)


def reap(proc: subprocess.Popen[Any]) -> Any:
    """Wait for ``proc`` and set its return code; its resource usage (with its children's:
    CPU seconds, peak memory), which ``Popen.wait`` does not give."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage


def cited(task_id: str) -> CheckVerdict:
    """The check a real researcher's answer carries when it cites a document it read: one
    written without seeing the answer, so the run can end `succeeded` (the final status rule,
    `roles.manager.final.verdict_of`). The benches measure scheduling, not verification."""
    return CheckVerdict(
        kind="sources",
        what="it cites the documents it read: the bench's corpus",
        candidate=task_id,
        passed=True,
        independent=True,
    )
