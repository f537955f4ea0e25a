"""The manager's questions to a person, and their answers as decisions the manager acts on.

With ``roles.human.plan_approval`` on, a valid plan waits for a person's verdict:
`plan_verdict` makes the answer an `Approve` (start the plan) or a `Reject` (back to the
planner as a ``rejected`` plan request whose critique is the person's reason). Nobody
answering within the timeout approves (the stated default), and the log says so.

When the critic's finding would stop the run because the replan budget is spent, and
``roles.human.escalate`` is on and someone is attached, the person decides instead:
`escalation_choice` makes the answer a `Replan` (one more revision, beyond the budget,
with the guidance in the planner's prompt), `CarryOn` (with the current plan) or `Stop`
(the default). With nobody attached the run stops as before, and the reason says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bus import Envelope
from bus.payloads import Critique, Plan
from roles.human_gate import HumanReply, QuestionKind
from roles.manager.graph import PlanCheck

__all__ = [
    "ESCALATION_OPTIONS",
    "Approve",
    "CarryOn",
    "Escalate",
    "Escalation",
    "Ignore",
    "Reject",
    "Replan",
    "Revise",
    "Steer",
    "Stop",
    "StopRun",
    "Verdict",
    "ask_approval",
    "ask_escalation",
    "budget_stop_reason",
    "critique_step",
    "describe_plan",
    "escalation_choice",
    "escalation_question",
    "escalation_why",
    "plan_verdict",
]

ESCALATION_OPTIONS = ("replan", "continue", "stop")


@dataclass(frozen=True)
class Approve:
    """Start the plan."""

    reply: HumanReply


@dataclass(frozen=True)
class Reject:
    """Send the plan back to the planner with ``why``."""

    reply: HumanReply
    why: str


Verdict = Approve | Reject


@dataclass(frozen=True)
class Replan:
    """Revise the plan once more (beyond the replan budget) with the person's guidance."""

    reply: HumanReply
    guidance: str


@dataclass(frozen=True)
class CarryOn:
    """Go on with the current plan."""

    reply: HumanReply


@dataclass(frozen=True)
class Stop:
    """End the run; ``who`` says who chose (or that nobody answered)."""

    reply: HumanReply
    who: str


Escalation = Replan | CarryOn | Stop


@dataclass(frozen=True)
class Ignore:
    """Nothing to do about this critique."""


@dataclass(frozen=True)
class Revise:
    """Replan (within the budget) for ``why``."""

    why: str


@dataclass(frozen=True)
class Escalate:
    """The replan budget is spent and a person is attached: ask them."""

    why: str


@dataclass(frozen=True)
class StopRun:
    """The replan budget is spent and nobody can be asked: stop, saying why."""

    reason: str


Steer = Ignore | Revise | Escalate | StopRun


def critique_step(
    critique: Critique,
    *,
    revision: int,
    can_replan: bool,
    escalate: bool,
    attached: bool,
    replans: int,
) -> Steer:
    """What a critique of the current plan makes the manager do."""
    if critique.verdict == "ok" or (critique.revision and critique.revision < revision):
        return Ignore()  # nothing wrong, or about a plan that has been replaced already
    why = escalation_why(critique)
    if can_replan:
        return Revise(why)
    if escalate and attached:
        return Escalate(why)
    unasked = " (no human attached to escalate to)" if escalate else ""
    return StopRun(budget_stop_reason(critique, replans) + unasked)


def escalation_why(critique: Critique) -> str:
    """Why a critique makes the manager replan or ask a person."""
    why = f"critic ({critique.detector}): {critique.summary}"
    if critique.recommendation:
        why += f" Recommendation: {critique.recommendation}"
    return why


def describe_plan(plan: Plan, check: PlanCheck) -> str:
    """The approval question: the plan's tasks in a few lines."""
    lines = [f"Approve plan {plan.revision} ({len(check.tasks)} tasks)?"]
    for spec in check.tasks.values():
        after = f" after {', '.join(spec.depends_on)}" if spec.depends_on else ""
        lines.append(f"  {spec.id} ({spec.role}{after}): {spec.description[:160]}")
    if plan.success_criteria:
        lines.append("  done when: " + "; ".join(plan.success_criteria)[:300])
    return "\n".join(lines)


def plan_verdict(reply: HumanReply, plan: Plan) -> Verdict:
    """What a person's answer to a plan approval decides."""
    if reply.approved:
        return Approve(reply)
    reason = reply.text.strip() or "no reason given"
    return Reject(reply, f"{reply.by} rejected plan {plan.revision}: {reason}")


def budget_stop_reason(critique: Critique, replans: int) -> str:
    """Why the run stops when a finding comes after the last allowed replan."""
    evidence = ", ".join(critique.evidence[:10])
    return (
        f"stopped: the critic's {critique.detector} detector fired and the replan budget "
        f"({replans}) is spent: {critique.summary} (evidence: {evidence})"
    )


def escalation_question(critique: Critique, replans: int) -> str:
    """What the person is asked when the replan budget is spent."""
    return (
        f"The critic found a {critique.verdict} ({critique.detector}): "
        f"{critique.summary}\nThe replan budget ({replans}) is spent. "
        "Answer 'replan <guidance>' to revise the plan once more, 'continue' to carry "
        "on with this plan, or 'stop'."
    )


def escalation_choice(reply: HumanReply) -> Escalation:
    """What a person's answer to an escalation decides (anything else: stop)."""
    word, _, guidance = reply.text.strip().partition(" ")
    match word.lower():
        case "replan":
            return Replan(reply, guidance.strip())
        case "continue":
            return CarryOn(reply)
        case _:
            who = "nobody answered (default: stop)" if reply.defaulted else f"{reply.by} chose stop"
            return Stop(reply, who)


class AskHuman(Protocol):
    """A role's `ask_human`."""

    def __call__(
        self,
        text: str,
        *,
        default: str,
        options: Sequence[str] = (),
        kind: QuestionKind = "question",
        parent: Envelope | str | None = None,
        task_id: str | None = None,
    ) -> Awaitable[HumanReply]: ...


async def ask_approval(ask: AskHuman, plan: Plan, check: PlanCheck, *, parent: Envelope) -> Verdict:
    """Ask a person to approve a valid plan (default: approve)."""
    reply = await ask(
        describe_plan(plan, check),
        kind="plan_approval",
        options=("approve", "reject"),
        default="approve",
        parent=parent,
    )
    return plan_verdict(reply, plan)


async def ask_escalation(
    ask: AskHuman, critique: Critique, replans: int, *, parent: Envelope
) -> Escalation:
    """Ask the person attached what to do now that the replan budget is spent (default: stop)."""
    reply = await ask(
        escalation_question(critique, replans),
        kind="escalation",
        options=ESCALATION_OPTIONS,
        default="stop",
        parent=parent,
    )
    return escalation_choice(reply)
