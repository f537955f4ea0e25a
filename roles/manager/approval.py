"""The manager's questions to the human: plan approval, and escalation when replans run out.

With ``roles.human.plan_approval`` on, a valid plan waits for a person's verdict: an
approval starts it, a rejection goes back to the planner as a ``rejected`` plan request
whose critique is the person's reason. Nobody answering within the timeout approves
(the stated default), and the log says so.

When the critic's finding would stop the run because the replan budget is spent, and
``roles.human.escalate`` is on and someone is attached, the person decides instead:
``replan <guidance>`` (one more revision, beyond the budget, with the guidance in the
planner's prompt), ``continue`` (carry on with the current plan) or ``stop`` (the
default). With nobody attached the run stops as before, and the reason says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bus import Envelope
from bus.payloads import Critique, Plan, PlanDecision
from roles.manager.graph import PlanCheck

if TYPE_CHECKING:
    from roles.manager.manager import Manager

__all__ = ["ESCALATION_OPTIONS", "HumanSteps", "budget_stop_reason", "describe_plan"]

ESCALATION_OPTIONS = ("replan", "continue", "stop")


def describe_plan(plan: Plan, check: PlanCheck) -> str:
    """The approval question: the plan's tasks in a few lines."""
    lines = [f"Approve plan {plan.revision} ({len(check.tasks)} tasks)?"]
    for spec in check.tasks.values():
        after = f" after {', '.join(spec.depends_on)}" if spec.depends_on else ""
        lines.append(f"  {spec.id} ({spec.role}{after}): {spec.description[:160]}")
    if plan.success_criteria:
        lines.append("  done when: " + "; ".join(plan.success_criteria)[:300])
    return "\n".join(lines)


def budget_stop_reason(critique: Critique, replans: int) -> str:
    """Why the run stops when a finding comes after the last allowed replan."""
    evidence = ", ".join(critique.evidence[:10])
    return (
        f"stopped: the critic's {critique.detector} detector fired and the replan budget "
        f"({replans}) is spent: {critique.summary} (evidence: {evidence})"
    )


class HumanSteps:
    """Plan approvals and escalations of one manager."""

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self.escalating = False

    @property
    def wants_approval(self) -> bool:
        """Whether plans wait for a person's approval."""
        return self.manager.human.settings.plan_approval

    def can_escalate(self) -> bool:
        """Whether a spent replan budget goes to a person (escalation on, someone attached)."""
        return self.manager.human.settings.escalate and bool(self.manager.human.attached)

    def unasked_note(self) -> str:
        """What the stop reason adds when escalation was on but nobody could be asked."""
        return " (no human attached to escalate to)" if self.manager.human.settings.escalate else ""

    async def approve(self, env: Envelope, plan: Plan, check: PlanCheck) -> None:
        """Ask for approval of a valid plan; start it, or send it back with the reason."""
        m = self.manager
        reply = await m.ask_human(
            describe_plan(plan, check),
            kind="plan_approval",
            options=("approve", "reject"),
            default="approve",
            parent=env,
        )
        if m.finished or plan.revision != m.revision:
            return
        if reply.approved:
            decision = PlanDecision(
                revision=plan.revision, accepted=True, merged=check.merged, kept=check.kept
            )
            await m.send(decision, parent=reply.message_id)
            await m.accept(env, plan, check)
            return
        reason = reply.text.strip() or "no reason given"
        why = f"{reply.by} rejected plan {plan.revision}: {reason}"
        await m.send(
            PlanDecision(revision=plan.revision, accepted=False, errors=[why]),
            parent=reply.message_id,
        )
        await m.request_plan("rejected", parent=reply.message_id, critique=why)

    async def escalate(self, env: Envelope, critique: Critique, why: str) -> None:
        """The replan budget is spent: let the person attached decide (default: stop)."""
        if self.escalating:
            return
        m = self.manager
        self.escalating = True
        try:
            reply = await m.ask_human(
                f"The critic found a {critique.verdict} ({critique.detector}): "
                f"{critique.summary}\nThe replan budget ({m.budget.settings.replans}) is spent. "
                "Answer 'replan <guidance>' to revise the plan once more, 'continue' to carry "
                "on with this plan, or 'stop'.",
                kind="escalation",
                options=ESCALATION_OPTIONS,
                default="stop",
                parent=env,
            )
        finally:
            self.escalating = False
        if m.finished:
            return
        word, _, guidance = reply.text.strip().partition(" ")
        match word.lower():
            case "replan":
                extra = f" Guidance from {reply.by}: {guidance.strip()}" if guidance.strip() else ""
                await m.replan(
                    "escalation",
                    why + extra,
                    parent=reply.message_id,
                    evidence=list(critique.evidence),
                )
            case "continue":
                m.log.info("escalation: carrying on", by=reply.by)
            case _:
                who = (
                    "nobody answered (default: stop)"
                    if reply.defaulted
                    else f"{reply.by} chose stop"
                )
                reason = budget_stop_reason(critique, m.budget.settings.replans)
                await m.finish("budget_exhausted", f"{reason}; {who}", parent=reply.message_id)
