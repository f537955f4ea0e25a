"""How tasks flow through the manager, as pure steps: the assignments a dispatch sends,
and what a task's result decides (`settle`), as a value the manager acts on.

`settle` applies a result to the `Ledger` and the `Scheduler`: outputs are recorded, a
failed attempt is retried (with a note for the next attempt) until its retries are
spent, then the task fails for good. What the run does next is the returned decision:
`Proceed` (dispatch what is ready), `Finish` (end the run) or `Replan`.
"""

from __future__ import annotations

from dataclasses import dataclass

from bus import Envelope
from bus.payloads import Goal, TaskAssignment, TaskResult
from roles.manager.ledger import InFlight, Ledger
from roles.manager.scheduler import Scheduler

__all__ = ["Finish", "Proceed", "Replan", "Settled", "assignments", "settle"]


@dataclass(frozen=True)
class Proceed:
    """Go on: dispatch what is ready."""


@dataclass(frozen=True)
class Finish:
    """End the run with this status and reason."""

    status: str
    reason: str


@dataclass(frozen=True)
class Replan:
    """A task failed for good and a replan is allowed: ask for a revised plan."""

    why: str


Settled = Proceed | Finish | Replan


def assignments(
    sched: Scheduler,
    ledger: Ledger,
    goal: Goal,
    *,
    run_id: str,
    sender: str,
    goal_id: str | None,
    revision: int,
    notes: dict[str, list[str]],
) -> list[Envelope]:
    """The next ready tasks the roles have room for, as assignment messages, each in
    flight in the ledger before it is out (so its result can never come back unknown)."""
    batch = []
    for spec in sched.next_batch():
        attempt = sched.status[spec.id].attempts
        computed = sched.inputs_for(spec)
        assignment = TaskAssignment(
            task=spec,
            goal=goal.text,
            inputs={**goal.inputs, **computed},  # the goal's values: every task's
            goal_values=[name for name in goal.inputs if name not in computed],
            attempt=attempt,
            plan_revision=revision,
            notes=[*notes.get(spec.role, []), *ledger.retry_note(spec.id)],
            deliverable=goal.deliverable if "answer" in spec.outputs else None,
        )
        env = Envelope.new(run_id, sender, assignment, parent_id=goal_id, task_id=spec.id)
        ledger.send(env.id, InFlight(spec.id, attempt, revision, role=spec.role))
        batch.append(env)
    return batch


def settle(
    sched: Scheduler | None,
    ledger: Ledger,
    flight: InFlight,
    result: TaskResult,
    *,
    revision: int,
    max_retries: int,
    can_replan: bool,
) -> Settled:
    """Apply a result (of an assignment already taken out of flight); say what follows.

    A result of an earlier plan revision keeps its outputs and artifacts but changes
    nothing in the current schedule.
    """
    ledger.artifacts += result.artifacts
    current = sched is not None and flight.revision == revision and flight.task_id in sched.status
    if result.status == "done":
        ledger.checked[flight.task_id] = list(result.verdicts)
        if result.confidence is not None:
            ledger.confidence[flight.task_id] = result.confidence
        ledger.level[flight.task_id] = list(result.level)
    if sched is None or not current:
        if result.status == "done":
            ledger.completed[flight.task_id] = dict(result.outputs)
        return Proceed()
    spec = sched.status[flight.task_id].spec
    missing = [o for o in spec.outputs if o not in result.outputs]
    status, error = result.status, result.error or "failed"
    if status == "done" and missing:
        status, error = "failed", f"did not produce outputs {missing}"
    match status:
        case "done":
            ledger.completed[flight.task_id] = dict(result.outputs)
            sched.complete(flight.task_id, result.outputs)
            return Proceed()
        case "budget_exhausted":
            sched.fail(flight.task_id, result.error or "")
            return Finish("budget_exhausted", result.error or "")
        case "failed" | "cancelled":
            attempts = sched.status[flight.task_id].attempts
            if attempts <= max_retries:
                ledger.note_retry(flight.task_id, attempts, error)
                sched.retry(flight.task_id)
                return Proceed()
            sched.fail(flight.task_id, error)
            ledger.failed[flight.task_id] = error
            if can_replan:
                return Replan(f"task {flight.task_id} failed: {error}")
            reason = f"task {flight.task_id} failed after {attempts} attempts: {error}"
            return Finish("failed", reason)
