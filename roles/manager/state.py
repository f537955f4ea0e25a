"""`ManagerState`: what a manager knows of its run besides its settings — the goal, the
lessons recalled, the planning counters, the schedule, the ledger (with the phase), the
spend, and the messages already acted on. `restore.rebuild` folds a log into a fresh one
and the manager adopts it whole, so resuming is a value handed over, not writes into a
running object."""

from __future__ import annotations

from dataclasses import dataclass, field

from bus.payloads import Goal, Plan
from roles.budget import Spend
from roles.manager.graph import PlanCheck
from roles.manager.ledger import Ledger
from roles.manager.planning import Planning
from roles.manager.scheduler import Scheduler

__all__ = ["ManagerState", "scheduled"]


@dataclass
class ManagerState:
    """One manager's knowledge of its run, as rebuilt from the log."""

    planning: Planning
    ledger: Ledger = field(default_factory=Ledger)
    goal: Goal | None = None
    goal_id: str | None = None
    lessons: list[str] = field(default_factory=list)
    scheduler: Scheduler | None = None
    spend: Spend = field(default_factory=Spend)
    handled: set[str] = field(default_factory=set)
    """Plans and critiques acted on (their redelivery is skipped)."""
    asked: int = 0
    """Questions the manager asked (their numbering goes on after them)."""
    active_s: float = 0.0
    """Seconds the run's processes ran (the wall budget counts only these)."""


def scheduled(
    planning: Planning,
    ledger: Ledger,
    goal: Goal,
    plan: Plan,
    check: PlanCheck,
    capacity: dict[str, int],
) -> Scheduler:
    """The schedule of an accepted plan (its criteria hold from now on, and the failures of
    the plan before it are forgotten)."""
    planning.accepted(plan)
    ledger.failed = {}
    return Scheduler(check.tasks, capacity, ledger.values(goal.inputs), check.aliases)
