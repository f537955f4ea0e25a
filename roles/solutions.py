"""Verified solutions as memory: the program that answered a goal and the checks it passed,
kept as a worked example and recalled for a similar goal only, so an unrelated goal recalls
nothing.

`Programs` reads a run's messages and names the program behind its final answer;
`read_run` does it for a finished run's log (the runner keeps a `succeeded` run's solution
from its whole log once it ends, so a resumed run keeps what an uninterrupted one would);
`Solution.text` is what memory keeps and the coder's prompt quotes; `relevance` is how
alike two goals are (the recall threshold).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bus import Envelope
from bus.logfile import read_jsonl
from bus.payloads import ExecRequest, ExecResult, Final, Goal
from roles.memory import SOLUTION_KIND, STOP_WORDS, Memory
from roles.program import LINE

__all__ = [
    "SOLUTION",
    "Programs",
    "Solution",
    "content_words",
    "keep_solution",
    "read_run",
    "relevance",
]

SOLUTION = SOLUTION_KIND
"""The memory kind of a verified solution (recalled only by the coder, only when asked)."""

_WORD = re.compile(r"[a-z][a-z0-9]{2,}")


def content_words(text: str) -> set[str]:
    """The words of ``text`` that say what it is about (no numbers: two goals of one kind
    differ in their values)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def relevance(a: str, b: str) -> float:
    """How alike two goals are: the share of content words they have in common (Jaccard,
    0-1)."""
    wa, wb = content_words(a), content_words(b)
    union = wa | wb
    return len(wa & wb) / len(union) if union else 0.0


@dataclass(frozen=True)
class Solution:
    """A program that answered a goal, and the checks its answer passed."""

    goal: str
    code: str
    checks: tuple[str, ...]
    given: tuple[str, ...] = ()
    """The names of the values given with the goal (the program reads them)."""

    def text(self) -> str:
        """The worked example as memory keeps it and a prompt quotes it."""
        checks = "; ".join(self.checks) or "its answer was checked"
        given = f"Given values: {', '.join(self.given)}\n" if self.given else ""
        return (
            f"Goal: {self.goal.strip()}\n{given}Checked: {checks}\n"
            f"Program:\n```python\n{self.code.strip()}\n```"
        )


class Programs:
    """The programs a run ran, by the id of their execution's result (which is how a
    verdict names its candidate)."""

    def __init__(self) -> None:
        self._requests: dict[str, str] = {}
        self._results: dict[str, str] = {}
        self.goal = ""
        self.given: tuple[str, ...] = ()

    def see(self, env: Envelope) -> None:
        """Note one message of the run (the goal and the executions matter)."""
        p = env.payload
        if isinstance(p, Goal) and not self.goal:
            self.goal, self.given = p.text, tuple(p.inputs)
        elif isinstance(p, ExecRequest):
            self._requests[env.id] = p.code.removeprefix(LINE)
        elif isinstance(p, ExecResult) and env.parent_id is not None:
            code = self._requests.get(env.parent_id)
            if code is not None and p.exit_code == 0:
                self._results[env.id] = code

    def solution(self, final: Final, *, checked_by: str | None = None) -> Solution | None:
        """The program behind ``final``'s answer, when the run verified it (``succeeded``)
        or, with ``checked_by``, when that outside check (a suite's graders) passed it."""
        verdict = final.verdict
        if verdict is None or not self.goal.strip():
            return None
        if checked_by is None and final.status != "succeeded":
            return None
        checks = [v.what for v in verdict.verdicts if v.passed and v.independent]
        if checked_by is not None:
            checks.append(checked_by)
        for v in verdict.verdicts:
            code = self._results.get(v.candidate)
            if code is not None and (v.passed or checked_by is not None):
                return Solution(self.goal, code, tuple(dict.fromkeys(checks)), self.given)
        return None


def keep_solution(memory: Memory, log: Path, run_id: str) -> bool:
    """Store the solution of a run that ended ``succeeded`` (from its whole log); False when
    it did not, or memory already holds one like it."""
    programs, final = read_run(log)
    solution = programs.solution(final) if final is not None else None
    if solution is None:
        return False
    stored = memory.add(
        solution.text(),
        kind=SOLUTION_KIND,
        task_kind="coder",
        run_id=run_id,
        source="final",
        goal=solution.goal,
    )
    return stored is not None


def read_run(log: Path) -> tuple[Programs, Final | None]:
    """A finished run's programs and its final message, from its log (`RunLogError` when
    there is no log)."""
    programs = Programs()
    final: Final | None = None
    for entry in read_jsonl(log).records:
        env = entry.envelope
        if env is None:
            continue
        programs.see(env)
        if isinstance(env.payload, Final):
            final = env.payload
    return programs, final
