"""Memory from graded runs: the programs behind the society's answers that an eval's graders
passed, kept as verified solutions (`roles.solutions`) that later goals recall.

Only the cases of an eval's results that the graders passed are learned from; the grade is
the check the solution records. Use it on ``train``, then measure on ``val`` with
``society eval --memory``: what a memory learned from val cases says nothing on val.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bus.errors import RunLogError
from roles.memory import SOLUTION_KIND, Memory
from roles.solutions import Solution, read_run
from society.eval.results import EvalResults, Record

__all__ = ["GRADED", "Learned", "learn_solutions", "program_of"]

GRADED = "the suite's graders passed its answer"


@dataclass
class Learned:
    """What one results file gave to memory."""

    added: list[str] = field(default_factory=list)
    """Cases whose solution was stored."""
    kept: list[str] = field(default_factory=list)
    """Cases whose solution an equal one already in memory stood for."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Cases passed by the graders that gave nothing, and why."""
    split: str | None = None


def learn_solutions(results_path: Path, memory: Memory) -> Learned:
    """Store the solution of every society answer in ``results_path`` its graders passed."""
    results = EvalResults.model_validate_json(results_path.read_text(encoding="utf-8"))
    learned = Learned(split=results.split)
    for record in results.records:
        if record.arm != "society" or not record.passed:
            continue
        label = f"{record.case}-r{record.repeat}"
        try:
            solution = _solution(record)
        except (RunLogError, OSError) as exc:
            learned.skipped[label] = str(exc)
            continue
        if isinstance(solution, str):
            learned.skipped[label] = solution
            continue
        stored = memory.add(
            solution.text(),
            kind=SOLUTION_KIND,
            task_kind="coder",
            run_id=record.run_id or label,
            source=str(results_path),
            goal=solution.goal,
        )
        (learned.added if stored is not None else learned.kept).append(label)
    return learned


def _solution(record: Record) -> Solution | str:
    """The program behind ``record``'s answer, or why there is none."""
    if not record.folder:
        return "the record names no run folder"
    programs, final = read_run(Path(record.folder) / "log.jsonl")
    if final is None:
        return "its log holds no final message"
    solution = programs.solution(final, checked_by=GRADED)
    return solution if solution is not None else "no program of its log gave the answer"


def program_of(record: Record) -> str:
    """The program behind a society record's answer, right or not ("" when there is none
    or its log cannot be read)."""
    if not record.folder:
        return ""
    try:
        programs, final = read_run(Path(record.folder) / "log.jsonl")
    except (RunLogError, OSError):
        return ""
    if final is None:
        return ""
    solution = programs.solution(final, checked_by="")
    return solution.code if solution is not None else ""
