"""Rebuilding a manager from its run's log, so `society resume` continues a run whose
processes stopped (a crash, a lost machine, a run parked while a person thinks).

`rebuild` walks the log in order and folds in the facts the manager acted on — the
goal, its recall, spend, plan requests and accepted plans, assignments, results,
timeouts, a person's pause, questions and their answers, the final — through the same
steps the live manager uses (`Planning.review`, `settle`), so the state is the one it
had. `resume` then does what the log shows was owed and not yet done: a decision taken
on a result but not acted on, questions still waiting (asked again only in spirit: the
same question waits anew), and whatever is ready to dispatch.

Nothing is done twice: an assignment in flight stays in flight (its work queue
redelivers it to a worker), a result already applied finds nothing when its queue
redelivers it, and a plan or critique the manager already acted on is skipped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bus import Envelope
from bus.payloads import (
    REPLANS,
    Answer,
    Control,
    Critique,
    Final,
    Goal,
    Plan,
    PlanDecision,
    PlanRequest,
    Question,
    Recall,
    TaskAssignment,
    TaskResult,
    ToolCall,
    Usage,
)
from roles.human_gate import HumanReply
from roles.manager import approval
from roles.manager.ledger import InFlight
from roles.manager.planning import Valid
from roles.manager.tasks import Finish, Proceed, Replan, Settled

if TYPE_CHECKING:
    from roles.manager.manager import Manager

__all__ = ["Pending", "Restored", "rebuild", "resume"]


@dataclass
class Pending:
    """A question of the manager's that the log shows unsettled or not yet acted on."""

    question: Envelope
    about: Envelope | None
    """The plan (an approval) or critique (an escalation) it asks about."""
    answer: Envelope | None = None
    check: Valid | None = None
    """An approval's checked plan."""


@dataclass
class Restored:
    """What the log shows the manager still owes."""

    owed: Settled | None = None
    """A result's decision (finish, replan) not yet acted on."""
    questions: dict[str, Pending] = field(default_factory=dict)
    active_s: float = 0.0
    """Seconds the run's processes ran (the wall budget counts only these)."""
    asked_for_plan: bool = False
    """The manager asked for a plan (else it stopped between the goal and its first request)."""
    recalled: bool = False
    """The manager's recall for the goal is in the log."""


def _kind(pending: Pending) -> str:
    q = pending.question.payload
    assert isinstance(q, Question)
    return q.kind


def rebuild(m: Manager, envelopes: Sequence[Envelope]) -> Restored:
    """Fold the log into ``m`` (before it starts); returns what is still owed."""
    r = Restored()
    plans: dict[int, tuple[Envelope, Plan]] = {}
    by_id = {e.id: e for e in envelopes}
    asked = 0
    since: int | None = None
    last = 0
    for env in envelopes:
        p = env.payload
        mine = env.sender == m.sender
        if mine and env.parent_id:
            m.handled.add(env.parent_id)
        match p:
            case Goal() if m.goal is None:
                m.goal, m.goal_id = p, env.id
            case Recall() if mine:
                m.lessons = [lesson.text for lesson in p.lessons]
                r.recalled = True
            case Usage() | ToolCall():
                m.budget.spend.add_usage(p)
            case PlanRequest() if mine:
                if p.reason in REPLANS:
                    m.budget.spend.replans += 1
                    m.ledger.inflight.clear()
                m.planning.revision, m.planning.attempt = p.revision, p.attempt
                m.planning.pending, r.owed = True, None
                r.asked_for_plan = True
            case Plan():
                plans[p.revision] = (env, p)
            case PlanDecision(accepted=True) if mine and p.revision in plans:
                valid = _review(m, plans[p.revision][1])
                if valid is not None:
                    m.schedule(plans[p.revision][1], valid.check)
            case TaskAssignment() if mine:
                flight = InFlight(p.task.id, p.attempt, p.plan_revision, role=p.task.role)
                m.ledger.send(env.id, flight)
                sched = m.scheduler
                if sched is not None and p.plan_revision == m.revision:
                    sched.start(p.task.id)
            case TaskResult():
                landed = m.ledger.land(env.parent_id)
                if landed is not None and p.status != "cancelled":
                    r.owed = _settle(m, landed, p)
            case Control(action="cancel", timeout_s=float() as limit) if mine:
                for flight in m.ledger.take(p.task_ids):
                    r.owed = _settle(m, flight, flight.timed_out(limit))
            case Control(action="pause" | "resume") if mine:
                m.escalating = p.action == "pause"
            case Control(action="pause" | "resume") if env.role == "human":
                if m.deps.human.may_steer(p.by, p.action):
                    m.paused = p.action == "pause"
            case Control(action="resumed"):
                r.active_s += (last - (since or last)) / 1e6
                since = None
            case Question() if mine:
                asked += 1
                about = by_id.get(env.parent_id or "")
                pending = Pending(env, about)
                if p.kind == "plan_approval" and about and isinstance(about.payload, Plan):
                    pending.check = _review(m, about.payload)
                r.questions[p.question_id] = pending
            case Answer():
                _answered(m, r, env, p)
            case Final():
                m.finished = True
            case _:
                pass
        since = env.ts if since is None else since
        last = env.ts
    r.active_s += (last - (since or last)) / 1e6
    m.human.skip_asked(asked)
    r.questions = {
        qid: q for qid, q in r.questions.items() if q.answer is None or q.answer.id not in m.handled
    }
    return r


def _answered(m: Manager, r: Restored, env: Envelope, answer: Answer) -> None:
    """The first answer to a question settles it (approvals only from approvers)."""
    pending = r.questions.get(answer.question_id)
    if pending is None or pending.answer is not None:
        return
    deciding = _kind(pending) != "question" and env.role == "human"
    if deciding and not m.deps.human.may(answer.by, "approve"):
        return
    pending.answer = env


def _review(m: Manager, plan: Plan) -> Valid | None:
    assert m.goal is not None
    review = m.planning.review(plan, m.goal, m.worker_roles(), m.ledger)
    return review if isinstance(review, Valid) else None


def _settle(m: Manager, flight: InFlight, result: TaskResult) -> Settled | None:
    settled = m.settle(flight, result)
    return None if isinstance(settled, Proceed) else settled


async def resume(m: Manager, r: Restored) -> None:
    """Go on from the rebuilt state (after ``m`` started): the clock, what is owed, the
    questions still open, and the next dispatch."""
    if m.finished or m.goal is None:
        return
    m.budget.started = time.monotonic() - r.active_s
    m.spawn(m.watch.run(lambda: m.planning.pending), name="manager-watch")
    if not r.asked_for_plan:
        # Stopped between the goal and the first plan request: the goal's redelivery finds
        # the goal known and does nothing, so ask here as `on_goal` would have.
        if not r.recalled:
            m.lessons = await m.recall(m.goal.text, parent=m.goal_id)
        await m.request_plan("initial", parent=m.goal_id)
        return
    match r.owed:
        case Finish(status=status, reason=reason):
            await m.finish(status, reason, parent=None)
            return
        case Replan(why=why):
            await m.replan("failure", why, parent=None)
        case None:
            pass
    for pending in r.questions.values():
        _wait_again(m, pending)
    sched = m.scheduler
    if sched is not None and sched.finished and not m.planning.pending:
        await m.finish("succeeded", "", parent=None)
        return
    await m.dispatch()


def _wait_again(m: Manager, pending: Pending) -> None:
    """Wait anew for the answer to a question asked before the processes stopped."""
    about = pending.about

    async def ask(*_: object, **__: object) -> HumanReply:
        return await m.human.wait_again(pending.question, pending.answer)

    match _kind(pending):
        case "plan_approval":
            if about is not None and isinstance(about.payload, Plan) and pending.check:
                plan, check = about.payload, pending.check.check
                m.spawn(m.approve(about, plan, check, ask=ask), name="manager-plan-approval")
        case "escalation":
            if about is not None and isinstance(about.payload, Critique):
                why = approval.escalation_why(about.payload)
                m.spawn(m.escalate(about, about.payload, why, ask=ask), name="manager-escalation")
        case _:
            pass
