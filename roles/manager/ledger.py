"""`Ledger`: the manager's bookkeeping of a run — its phase, assignments in flight, outputs
of the tasks done, failures, artifacts, and why a task's last attempt failed (told to its
next).

The phase is one value (`Phase`) that moves only by the events in `MOVES`, the same for
the live manager and for the one rebuilt from the log (`restore`).

A result is applied once, by the assignment it answers: `land` takes the assignment out
of flight, so a duplicate (a redelivered task's second result) finds nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

from pydantic import JsonValue

from bus.payloads import Artifact, TaskResult
from bus.verdicts import CheckVerdict, Confidence, Level

__all__ = ["MOVES", "Event", "InFlight", "Ledger", "Phase"]


class Phase(Enum):
    """Where the manager's run stands."""

    RUNNING = "running"
    """Dispatching what is ready (or waiting for a plan or results)."""
    PAUSED = "paused"
    """A person paused it: nothing is dispatched until they resume it."""
    ESCALATING = "escalating"
    """The replan budget is spent and a person decides: nothing is dispatched meanwhile."""
    STOPPING = "stopping"
    """A budget is spent: nothing more is dispatched; tasks in flight may still report."""
    PARKED = "parked"
    """It waits for a person with its processes stopped (`society resume` goes on)."""
    FINISHED = "finished"
    """The final message is sent: nothing more is done."""


Event = Literal["pause", "resume", "escalate", "answered", "stop", "park", "finish"]

_LIVE = frozenset({Phase.RUNNING, Phase.PAUSED, Phase.ESCALATING})
MOVES: dict[Event, tuple[frozenset[Phase], Phase]] = {
    # an event: the phases it moves from, and the phase it moves to (else it changes nothing)
    "pause": (frozenset({Phase.RUNNING}), Phase.PAUSED),  # by a person
    "resume": (frozenset({Phase.PAUSED}), Phase.RUNNING),  # by a person
    "escalate": (frozenset({Phase.RUNNING, Phase.PAUSED}), Phase.ESCALATING),
    "answered": (frozenset({Phase.ESCALATING}), Phase.RUNNING),  # the escalation's answer
    "stop": (_LIVE, Phase.STOPPING),
    "park": (_LIVE | {Phase.STOPPING}, Phase.PARKED),
    "finish": (frozenset(Phase) - {Phase.FINISHED}, Phase.FINISHED),
}


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

    phase: Phase = Phase.RUNNING
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
    confidence: dict[str, Confidence] = field(default_factory=dict)
    """How sure each task done that stated it is of its outputs, by task id."""
    level: dict[str, list[Level]] = field(default_factory=dict)
    """The candidates each task done found level with the outputs it gave, by task id."""

    def move(self, event: Event) -> bool:
        """Move the phase by ``event``; whether it moved (an event a phase does not take,
        such as a second finish, changes nothing)."""
        sources, target = MOVES[event]
        if self.phase not in sources:
            return False
        self.phase = target
        return True

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
