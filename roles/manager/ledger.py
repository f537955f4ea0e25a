"""`Ledger`: the manager's bookkeeping of a run — assignments in flight, outputs of the
tasks done, failures, artifacts, and why a task's last attempt failed (told to its next).

A result is applied once, by the assignment it answers: `land` takes the assignment out
of flight, so a duplicate (a redelivered task's second result) finds nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pydantic import JsonValue

from bus.payloads import Artifact, TaskResult
from bus.verdicts import CheckVerdict

__all__ = ["InFlight", "Ledger"]


@dataclass
class InFlight:
    """One assignment sent and not yet answered."""

    task_id: str
    attempt: int
    revision: int
    started: float = field(default_factory=time.monotonic)
    role: str = ""

    def timed_out(self, limit_s: float) -> TaskResult:
        """The failed result this attempt gets when no result came within ``limit_s``."""
        return TaskResult(
            task_id=self.task_id,
            role="manager",
            attempt=self.attempt,
            status="failed",
            error=f"no result within {limit_s:g}s",
        )


@dataclass
class Ledger:
    """What the run has done and what is under way."""

    inflight: dict[str, InFlight] = field(default_factory=dict)
    """By the id of the assignment message."""
    completed: dict[str, dict[str, JsonValue]] = field(default_factory=dict)
    """Outputs of every task done, by task id (across plan revisions)."""
    failed: dict[str, str] = field(default_factory=dict)
    """Tasks of the current plan that failed for good, with the reason."""
    artifacts: list[Artifact] = field(default_factory=list)
    retry_notes: dict[str, str] = field(default_factory=dict)
    """Why a task's last attempt failed, told to its next attempt."""
    checked: dict[str, list[CheckVerdict]] = field(default_factory=dict)
    """How each task done checked its outputs: its verdicts, by task id."""

    def send(self, assignment_id: str, flight: InFlight) -> None:
        """An assignment goes out (recorded before it is published, so its result is known)."""
        self.inflight[assignment_id] = flight

    def land(self, assignment_id: str | None) -> InFlight | None:
        """The assignment a result answers, taken out of flight (None: unknown or answered)."""
        return self.inflight.pop(assignment_id or "", None)

    def take(self, task_ids: list[str]) -> list[InFlight]:
        """The assignments in flight for these tasks, taken out of flight."""
        found = [mid for mid, f in self.inflight.items() if f.task_id in task_ids]
        return [self.inflight.pop(mid) for mid in found]

    def values(self, given: dict[str, JsonValue]) -> dict[str, JsonValue]:
        """Every value a task may take as input: the goal's, then every completed output."""
        values = dict(given)
        for outputs in self.completed.values():
            values.update(outputs)
        return values

    def timed_out(self, limit_s: float, now: float) -> list[InFlight]:
        """Assignments in flight for longer than ``limit_s``, taken out of flight."""
        late = [mid for mid, f in self.inflight.items() if now - f.started > limit_s]
        return [self.inflight.pop(mid) for mid in late]

    def running(self) -> list[str]:
        """Ids of the tasks in flight, sorted."""
        return sorted({f.task_id for f in self.inflight.values()})

    def note_retry(self, task_id: str, attempts: int, error: str) -> None:
        """Remember why an attempt failed, for the next one."""
        self.retry_notes[task_id] = f"Attempt {attempts} failed: {error[:500]}"

    def retry_note(self, task_id: str) -> list[str]:
        """What the next attempt of ``task_id`` is told about the last one."""
        note = self.retry_notes.get(task_id)
        return [note] if note else []
