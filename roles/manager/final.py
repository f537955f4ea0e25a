"""What the final message says: the answer and the outputs of the completed tasks, and a
one-line summary of what the run did and spent."""

from __future__ import annotations

import json

from pydantic import JsonValue

from bus.payloads import Final
from roles.budget import BudgetTracker
from roles.manager.ledger import Ledger
from roles.manager.scheduler import Scheduler, TaskState

__all__ = ["final_answer", "final_message", "final_summary"]


def _sinks(sched: Scheduler) -> list[str]:
    """Tasks nothing depends on: where the plan ends."""
    depended = {d for st in sched.status.values() for d in st.spec.depends_on}
    return [tid for tid in sched.status if tid not in depended]


def final_answer(
    completed: dict[str, dict[str, JsonValue]], scheduler: Scheduler | None
) -> tuple[str | None, dict[str, JsonValue]]:
    """The output named ``answer``, else the outputs of the plan's last tasks as JSON;
    and every output of the completed tasks."""
    outputs: dict[str, JsonValue] = {}
    for task_outputs in completed.values():
        outputs.update(task_outputs)
    answer = outputs.get("answer")
    if answer is None and scheduler is not None:
        sinks = _sinks(scheduler)
        sink_values = {k: v for tid in sinks for k, v in completed.get(tid, {}).items()}
        answer = json.dumps(sink_values, ensure_ascii=False) if sink_values else None
    text = answer if isinstance(answer, str) or answer is None else json.dumps(answer)
    return text, outputs


def final_summary(
    done: int, failed: int, scheduler: Scheduler | None, revision: int, budget: BudgetTracker
) -> str:
    """Tasks, plan revisions and spend in one line."""
    counts = scheduler.counts() if scheduler else {}
    spend = budget.spend
    return (
        f"{done} tasks done, {failed} failed, "
        f"{counts.get(TaskState.RUNNING, 0)} cancelled in flight; plan revision "
        f"{revision} ({spend.replans} replans); {spend.calls} model calls, "
        f"{spend.tokens:,} tokens, {spend.cost:.4f} {budget.settings.currency}, "
        f"{spend.sandbox_s:.1f} s sandbox, {budget.elapsed():.1f} s wall"
    )


def final_message(
    status: str,
    reason: str,
    ledger: Ledger,
    scheduler: Scheduler | None,
    revision: int,
    budget: BudgetTracker,
) -> Final:
    """The run's final message: the answer, every output and artifact, the summary line."""
    answer, outputs = final_answer(ledger.completed, scheduler)
    done, failed = len(ledger.completed), len(ledger.failed)
    return Final(
        status=status,  # type: ignore[arg-type]
        answer=answer,
        outputs=outputs,
        artifacts=ledger.artifacts,
        summary=final_summary(done, failed, scheduler, revision, budget),
        reason=reason,
    )
