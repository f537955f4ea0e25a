"""The society as GEPA's system under training: a candidate (instructions per role) is scored
by running cases through the eval's society arm with those instructions and grading them;
what each case's graders, checks and people said becomes the feedback the reflection
model reads.

GEPA calls the adapter from its own thread; the case runs happen on the event loop that
owns the eval's sandbox (`Runs`). Every scored (candidate, case) is kept in a JSON-lines
file, so a killed training resumes without running a scored case again.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gepa.core.adapter import EvaluationBatch, ProposalFn

from society.eval.results import Record
from society.eval.suite import Case
from society.run.prompt_set import set_id

__all__ = ["RIGHT", "Runs", "ScoreFile", "Scored", "SocietyAdapter", "score_of"]

RIGHT, WRONG, FALSE_SUCCESS = 1.0, 0.0, -0.5
"""A case's score: right; wrong, or no answer; wrong but ended ``succeeded``."""

Runs = Callable[[list[Case], dict[str, str], Callable[[Record], None]], Coroutine[Any, Any, None]]
"""Runs cases with a candidate's instructions and grades them, handing over each case's
record as soon as it is graded."""


@dataclass(frozen=True)
class Scored:
    """One case run under one candidate, graded, with the feedback it gives."""

    case: str
    candidate: str
    """The candidate's id (`set_id` of its instructions)."""
    score: float
    right: bool
    false_success: bool
    status: str
    answer: str
    feedback: str
    calls: int = 0
    tokens: int = 0


def score_of(record: Record) -> float:
    """A graded record's score (a false success counts below a wrong answer left open)."""
    if record.passed:
        return RIGHT
    return FALSE_SUCCESS if record.false_success else WRONG


def _feedback(record: Record, case: Case, program: str) -> str:
    lines = []
    if record.passed:
        lines.append("Right: every grader passed.")
    else:
        failed = [g.detail for g in record.grades if not g.passed]
        lines.append("Wrong: " + ("; ".join(failed) or "no answer"))
    if record.false_success:
        lines.append("The run ended `succeeded`: its checks let a wrong answer through.")
    lines.append(f"Status: {record.status}" + (f" ({record.reason})" if record.reason else ""))
    if case.remark:
        lines.append(f"A person who rated this goal's run said: {case.remark}")
    if program:
        lines.append(f"The program behind the answer:\n{program[:1500]}")
    return "\n".join(lines)


class ScoreFile:
    """Scored cases by (candidate, case), kept in a JSON-lines file (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._scored: dict[tuple[str, str], Scored] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    try:
                        s = Scored(**json.loads(line))
                    except (ValueError, TypeError):
                        continue  # a line cut by a kill: that case runs again
                    self._scored[(s.candidate, s.case)] = s

    def get(self, candidate: str, case: str) -> Scored | None:
        with self._lock:
            return self._scored.get((candidate, case))

    def add(self, scored: Scored) -> None:
        with self._lock:
            self._scored[(scored.candidate, scored.case)] = scored
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(scored), ensure_ascii=False) + "\n")

    def __len__(self) -> int:
        with self._lock:
            return len(self._scored)


class SocietyAdapter:
    """GEPA's adapter (`gepa.GEPAAdapter`) over the society: cases are `Case`s, outputs and
    trajectories are `Scored`."""

    propose_new_texts: ProposalFn | None = None
    """GEPA's own proposer: the reflection model edits the instruction."""

    def __init__(
        self,
        runs: Runs,
        loop: asyncio.AbstractEventLoop,
        scores: ScoreFile,
        program_of: Callable[[Record], str],
        said: Callable[[str], None],
    ) -> None:
        self.runs = runs
        self.loop = loop
        self.scores = scores
        self.program_of = program_of
        self.said = said
        self.case_runs = 0
        """Cases run by this process (not answered from the score file)."""
        self.case_tokens = 0
        """Their tokens."""
        self._goals: dict[str, str] = {}

    def evaluate(
        self, batch: list[Case], candidate: dict[str, str], capture_traces: bool = False
    ) -> EvaluationBatch[Scored, Scored]:
        """Score ``candidate`` on ``batch``: from the score file, or by running the cases."""
        cid = set_id(candidate)
        known: dict[str, Scored | None] = {c.id: self.scores.get(cid, c.id) for c in batch}
        todo = [c for c in batch if known[c.id] is None]
        if todo:
            by_id = {c.id: c for c in todo}

            def keep(record: Record) -> None:  # on the loop, as each case is graded
                scored = self._scored(by_id[record.case], record, cid)
                self.scores.add(scored)
                known[record.case] = scored
                self.case_runs += 1
                self.case_tokens += record.tokens

            run = asyncio.run_coroutine_threadsafe(self.runs(todo, candidate, keep), self.loop)
            run.result()
        got = [s for s in (known[c.id] for c in batch) if s is not None]
        right = sum(s.right for s in got)
        cached = len(batch) - len(todo)
        self.said(
            f"candidate {cid}: {right}/{len(batch)} right"
            + (f" ({cached} from earlier)" if cached else "")
        )
        return EvaluationBatch(
            outputs=got,
            scores=[s.score for s in got],
            trajectories=got if capture_traces else None,
        )

    def _scored(self, case: Case, record: Record, cid: str) -> Scored:
        program = self.program_of(record) if record.arm == "society" else ""
        return Scored(
            case=case.id,
            candidate=cid,
            score=score_of(record),
            right=record.passed,
            false_success=record.false_success,
            status=record.status,
            answer=(record.answer or "")[:1000],
            feedback=_feedback(record, case, program),
            calls=record.calls,
            tokens=record.tokens,
        )

    def make_reflective_dataset(
        self,
        candidate: dict[str, str],
        eval_batch: EvaluationBatch[Scored, Scored],
        components_to_update: list[str],
    ) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        """What the reflection model reads for each component: every case's goal, answer
        and feedback."""
        goals = self._goals
        rows = [
            {
                "Inputs": goals.get(s.case, s.case),
                "Generated Outputs": f"{s.answer or '(no answer)'} [status: {s.status}]",
                "Feedback": s.feedback,
            }
            for s in eval_batch.trajectories or []
        ]
        return {component: rows for component in components_to_update}

    def know(self, cases: Sequence[Case]) -> None:
        """The goals (and values) of the cases, for the reflective dataset."""
        self._goals = {c.id: _goal_text(c) for c in cases}


def _goal_text(case: Case) -> str:
    if not case.inputs:
        return case.goal
    values = json.dumps(case.inputs, ensure_ascii=False)
    return f"{case.goal}\nGiven values: {values[:1500]}"
