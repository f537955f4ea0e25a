"""The manager's side of planning: which revision and try it asks the planner for, and
what a plan that comes back decides (`Planning.review`), as a value the manager acts on.

A plan is `Stale` when it answers a request no longer open, `Refused` with the errors
the planner gets back (or, after the last try, the reason the run fails), `Valid` with
the checked task graph, or a `Finish` when the planner itself gave up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from bus.payloads import Goal, Plan, PlanDecision, PlanRequest
from roles.manager.graph import PlanCheck, validate_plan
from roles.manager.ledger import Ledger
from roles.manager.tasks import Finish
from roles.verifier.goal_check import GOAL_CHECK, goal_check_task, wants_goal_check

__all__ = ["Planning", "Refused", "Review", "Stale", "Valid"]


@dataclass(frozen=True)
class Stale:
    """The plan answers a request that is no longer open: ignore it."""


@dataclass(frozen=True)
class Refused:
    """The plan did not validate: ``decision`` says why; ``give_up`` is the run's failure
    reason once the tries are spent (else the planner tries again)."""

    decision: PlanDecision
    give_up: str | None


@dataclass(frozen=True)
class Valid:
    """The plan validated: ``check`` holds its tasks, merges and carried-over outputs."""

    check: PlanCheck

    def decision(self, revision: int) -> PlanDecision:
        """The acceptance message."""
        c = self.check
        return PlanDecision(
            revision=revision, accepted=True, merged=c.merged, kept=c.kept, repaired=c.repaired
        )


Review = Stale | Finish | Refused | Valid


@dataclass
class Planning:
    """Revision and try counters, the agreed success criteria, and whether a plan is due."""

    max_tries: int
    duplicate_threshold: float
    goal_check: bool = False
    """Whether a plan of several tasks gets the goal check (`roles.verifier.goal_check`)."""
    revision: int = 0
    attempt: int = 0
    criteria: list[str] = field(default_factory=list)
    pending: bool = False
    """A plan request is open (nothing is dispatched meanwhile)."""

    def request(
        self,
        reason: str,
        goal: Goal,
        roles: list[str],
        ledger: Ledger,
        *,
        errors: list[str] | None = None,
        critique: str | None = None,
        evidence: list[str] | None = None,
    ) -> PlanRequest:
        """The next request: a new revision, or (``invalid``) another try of this one."""
        if reason == "invalid":
            self.attempt += 1
        else:
            self.revision += 1
            self.attempt = 1
        self.pending = True
        return PlanRequest(
            goal=goal.text,
            revision=self.revision,
            attempt=self.attempt,
            reason=reason,  # type: ignore[arg-type]
            goal_inputs=sorted(goal.inputs),
            deliverable=goal.deliverable,
            roles=roles,
            errors=errors or [],
            completed=_team(ledger.completed),
            failed=_team(ledger.failed),
            critique=critique,
            evidence=evidence or [],
            success_criteria=self.criteria,
        )

    def review(self, plan: Plan, goal: Goal, roles: list[str], ledger: Ledger) -> Review:
        """What a plan from the planner decides."""
        if plan.revision != self.revision or not self.pending:
            return Stale()
        match plan.status:
            case "failed":
                return Finish("failed", f"the planner could not produce a plan: {plan.error}")
            case "budget_exhausted":
                return Finish("budget_exhausted", plan.error or "")
            case "proposed":
                pass
        check = validate_plan(
            plan.tasks,
            roles=set(roles),
            available=set(ledger.values(goal.inputs)),
            completed={tid: list(out) for tid, out in ledger.completed.items()},
            threshold=self.duplicate_threshold,
            given=set(goal.inputs),
        )
        if check.ok:
            if (
                self.goal_check
                and goal.deliverable is None
                and GOAL_CHECK not in ledger.completed  # a replan keeps the one done
                and wants_goal_check(check.tasks, set(roles))
            ):
                added = goal_check_task(sorted(goal.inputs))
                check.tasks[added.id] = added
                check.repaired[added.id] = (
                    "(added: the coder answers the whole goal on its own, to check the answer)"
                )
            return Valid(check)
        decision = PlanDecision(
            revision=plan.revision,
            accepted=False,
            errors=check.errors,
            merged=check.merged,
            kept=check.kept,
            repaired=check.repaired,
        )
        give_up = None
        if self.attempt >= self.max_tries:
            last = "; ".join(check.errors)
            give_up = f"no valid plan after {self.attempt} tries; last errors: {last}"
        return Refused(decision, give_up)

    def accepted(self, plan: Plan) -> None:
        """A plan was accepted: nothing is due, and its criteria hold from now on."""
        self.pending = False
        self.criteria = self.criteria or plan.success_criteria


_V = TypeVar("_V")


def _team(tasks: dict[str, _V]) -> dict[str, _V]:
    """The tasks the planner is shown: the team's, not the goal check (the manager's own,
    kept apart so that it stays independent: a live 1.5B replan shown it named three of its
    tasks ``goal_check`` and was refused three times)."""
    return {tid: v for tid, v in tasks.items() if tid != GOAL_CHECK}
