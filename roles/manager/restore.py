"""Rebuilding a manager from its run's log, so `society resume` continues a run whose
processes stopped (a crash, a lost machine, a run parked while a person thinks).

`rebuild` walks the log in order and folds the facts the manager acted on — the goal,
its recall, spend, plan requests and accepted plans, assignments, results, timeouts, a
person's pause, questions and their answers, the final — into a fresh `ManagerState`,
through the same steps the live manager uses (`Planning.review`, `settle`, `scheduled`,
`Ledger.move`), so the state is the one it had; the manager adopts it before it starts.
`resume` then does what the log shows was owed and not yet done: a decision taken
on a result but not acted on, questions still waiting (asked again only in spirit: the
same question waits anew), and whatever is ready to dispatch.

Nothing is done twice: an assignment in flight stays in flight (its work queue
redelivers it to a worker), a result already applied finds nothing when its queue
redelivers it, and a plan or critique the manager already acted on is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
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
from roles.budget import BudgetTracker
from roles.human_gate import HumanReply
from roles.manager import approval
from roles.manager.ledger import InFlight, Phase
from roles.manager.planning import Valid
from roles.manager.state import ManagerState, scheduled
from roles.manager.tasks import Finish, Proceed, Replan, Settled, settle

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
    """The manager's state rebuilt from the log, and what the log shows it still owes."""

    state: ManagerState
    owed: Settled | None = None
    """A result's decision (finish, replan) not yet acted on."""
    questions: dict[str, Pending] = field(default_factory=dict)
    asked_for_plan: bool = False
    """The manager asked for a plan (else it stopped between the goal and its first request)."""
    recalled: bool = False
    """The manager's recall for the goal is in the log."""


def _kind(pending: Pending) -> str:
    q = pending.question.payload
    assert isinstance(q, Question)
    return q.kind


def rebuild(m: Manager, envelopes: Sequence[Envelope]) -> Restored:
    """Fold the log into a fresh state for ``m`` (which it adopts before it starts), with
    what is still owed; ``m`` gives its settings and is not changed."""
    r = Restored(ManagerState(replace(m.planning, criteria=[])))
    s = r.state
    plans: dict[int, tuple[Envelope, Plan]] = {}
    by_id = {e.id: e for e in envelopes}
    since: int | None = None
    last = 0
    for env in envelopes:
        p = env.payload
        mine = env.sender == m.sender
        if mine and env.parent_id:
            s.handled.add(env.parent_id)
        match p:
            case Goal() if s.goal is None:
                s.goal, s.goal_id = p, env.id
            case Recall() if mine:
                s.lessons = [lesson.text for lesson in p.lessons]
                r.recalled = True
            case Usage() | ToolCall():
                s.spend.add_usage(p)
            case PlanRequest() if mine:
                if p.reason in REPLANS:
                    s.spend.replans += 1
                    s.ledger.inflight.clear()
                s.planning.revision, s.planning.attempt = p.revision, p.attempt
                s.planning.pending, r.owed = True, None
                r.asked_for_plan = True
            case Plan():
                plans[p.revision] = (env, p)
            case PlanDecision(accepted=True) if mine and p.revision in plans:
                valid = _review(m, s, plans[p.revision][1])
                if valid is not None and s.goal is not None:
                    capacity = m.presence.capacities(m.capacity)
                    plan = plans[p.revision][1]
                    s.scheduler = scheduled(
                        s.planning, s.ledger, s.goal, plan, valid.check, capacity
                    )
            case TaskAssignment() if mine:
                flight = InFlight(p.task.id, p.attempt, p.plan_revision, role=p.task.role)
                s.ledger.send(env.id, flight)
                if s.scheduler is not None and p.plan_revision == s.planning.revision:
                    s.scheduler.start(p.task.id)
            case TaskResult():
                landed = s.ledger.land(env.parent_id)
                if landed is not None and p.status != "cancelled":
                    r.owed = _settle(m, s, landed, p)
            case Control(action="cancel", timeout_s=float() as limit) if mine:
                for flight in s.ledger.take(p.task_ids):
                    r.owed = _settle(m, s, flight, flight.timed_out(limit))
            case Control(action="pause" | "resume") if mine:
                s.ledger.move("escalate" if p.action == "pause" else "answered")
            case Control(action="pause" | "resume") if env.role == "human":
                if m.deps.human.may_steer(p.by, p.action):
                    s.ledger.move("pause" if p.action == "pause" else "resume")
            case Control(action="resumed"):
                s.active_s += (last - (since or last)) / 1e6
                since = None
            case Question() if mine:
                s.asked += 1
                about = by_id.get(env.parent_id or "")
                pending = Pending(env, about)
                if p.kind == "plan_approval" and about and isinstance(about.payload, Plan):
                    pending.check = _review(m, s, about.payload)
                r.questions[p.question_id] = pending
            case Answer():
                _answered(m, r, env, p)
            case Final():
                s.ledger.move("finish")
            case _:
                pass
        since = env.ts if since is None else since
        last = env.ts
    s.active_s += (last - (since or last)) / 1e6
    r.questions = {
        qid: q for qid, q in r.questions.items() if q.answer is None or q.answer.id not in s.handled
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


def _review(m: Manager, s: ManagerState, plan: Plan) -> Valid | None:
    assert s.goal is not None
    review = s.planning.review(plan, s.goal, m.worker_roles(), s.ledger)
    return review if isinstance(review, Valid) else None


def _settle(m: Manager, s: ManagerState, flight: InFlight, result: TaskResult) -> Settled | None:
    can_replan = BudgetTracker(m.budget.settings, spend=s.spend).can_replan()
    settled = settle(s.scheduler, s.ledger, flight, result, revision=s.planning.revision,
                     max_retries=m.settings.max_task_retries, can_replan=can_replan)  # fmt: skip
    return None if isinstance(settled, Proceed) else settled


async def resume(m: Manager, r: Restored) -> None:
    """Go on from the rebuilt state (after ``m`` adopted it and started): what is owed, the
    questions still open, and the next dispatch."""
    if m.ledger.phase is Phase.FINISHED or m.goal is None:
        return
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
