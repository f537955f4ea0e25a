"""The manager: asks for a plan, validates it, dispatches ready tasks in priority order as
far as the roles' capacity allows, collects results, replans on failure or critique, enforces
budgets, and publishes the final message (`final`: the answer and its verdict). Its parts
decide and return values it acts on (`planning`, `tasks`, `approval`, `watch`, `restore`);
the bookkeeping, with the run's phase, is the `Ledger`; a resumed manager adopts the state
`restore` rebuilt from the log. A result is applied once, by the assignment it answers; a
needed role nobody serves fails the run after the presence wait.
"""

from __future__ import annotations

import time
from typing import assert_never

from bus import Envelope, payloads, subjects
from bus.payloads import (
    Chat,
    Control,
    Critique,
    Goal,
    Plan,
    PlanDecision,
    Presence,
    TaskResult,
    Usage,
)
from bus.subjects import Channel
from bus.workqueue import QueueSpec
from roles.base import Role
from roles.budget import BudgetTracker
from roles.context import RoleContext
from roles.manager import approval
from roles.manager.approval import AskHuman
from roles.manager.final import NO_ANSWER, final_message, stated, synthesize
from roles.manager.graph import PlanCheck
from roles.manager.ledger import InFlight, Ledger, Phase
from roles.manager.planning import Planning, Refused, Stale, Valid
from roles.manager.scheduler import Scheduler
from roles.manager.state import ManagerState, scheduled
from roles.manager.tasks import Finish, Proceed, Replan, assignments, settle
from roles.manager.watch import Watch
from roles.presence import PresenceRegistry
from roles.settings import ManagerSettings

__all__ = ["IGNORED", "Manager"]

IGNORED = (
    payloads.PlanRequest, payloads.PlanDecision, payloads.TaskAssignment, payloads.ExecRequest,
    payloads.ExecResult, payloads.Question, payloads.Answer, payloads.Chat, payloads.Rating,
    payloads.Lesson, payloads.Recall, Control, payloads.Final, payloads.DeadLetter,
)  # fmt: skip
"""What the manager hears and does nothing with (controls come by `on_control`)."""


class Manager(Role[ManagerSettings]):
    """Owns the run's plan, schedule and budgets."""

    name = "manager"
    calls_roll = True

    def __init__(self, ctx: RoleContext[ManagerSettings]) -> None:
        super().__init__(ctx)
        self.capacity: dict[str, int] = dict(ctx.deps.capacity)
        self.budget = BudgetTracker(ctx.deps.budgets)
        self.goal: Goal | None = None
        self.goal_id: str | None = None
        self.lessons: list[str] = []
        """Lessons of earlier runs for the goal, recalled once it arrives."""
        s = self.settings
        self.planning = Planning(
            s.max_plan_tries, s.duplicate_threshold, goal_check=bool(s.goal_check)
        )
        self.scheduler: Scheduler | None = None
        self.ledger = Ledger()
        self.handled: set[str] = set()
        """Plans and critiques acted on before a resume (their redelivery is skipped)."""
        self.presence = PresenceRegistry(ctx.presence)
        self.watch = Watch(
            self.settings,
            self.budget,
            self.presence,
            self.ledger,
            finish=self.finish,
            time_out=self._time_out,
            spawn=self.spawn,
            human=self.human,
            send=self.send,
        )

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """What the manager steers by besides its inbox queue (goal, usage, presence)."""
        own = (Channel.GOAL, Channel.USAGE, Channel.PRESENCE)
        return [(subjects.subject(self.run_id, c), None) for c in own] + super().subscriptions()

    def adopt(self, state: ManagerState) -> None:
        """Take the state rebuilt from the run's log (`restore.rebuild`), before starting."""
        self.goal, self.goal_id, self.lessons = state.goal, state.goal_id, state.lessons
        self.planning, self.scheduler, self.handled = state.planning, state.scheduler, state.handled
        self.ledger = self.watch.ledger = state.ledger
        self.budget.spend = state.spend
        self.budget.started = time.monotonic() - state.active_s
        self.human.skip_asked(state.asked)

    def queues(self) -> list[QueueSpec]:
        """Plans, results and critiques: one at a time, in the order the log stored them."""
        inbox = (Channel.PLAN, Channel.RESULT, Channel.CRITIQUE)
        return [QueueSpec("manager", inbox, ordered=True)]

    # -- routing ---------------------------------------------------------------------------

    async def handle(self, env: Envelope) -> None:
        """Route by payload type."""
        p = env.payload
        if self.ledger.phase is Phase.FINISHED or env.id in self.handled or isinstance(p, IGNORED):
            return
        match p:
            case Goal():
                await self.on_goal(env, p)
            case Plan():
                await self.on_plan(env, p)
            case TaskResult():
                await self.on_result(env, p)
            case Usage() | payloads.ToolCall():
                await self.watch.on_usage(env, p)
            case Critique():
                await self.on_critique(env, p)
            case Presence():
                await self.on_presence(env, p)
            case _:
                assert_never(p)

    async def on_control(self, env: Envelope, control: Control) -> None:
        """Pause, resume or abort on request (a person or a tool)."""
        if self.ledger.phase is Phase.FINISHED or env.sender == self.sender:
            return
        if env.role == "human" and not self.deps.human.may_steer(control.by, control.action):
            notice = f"{control.by} may not {control.action} this run"
            await self.send(Chat(text=notice, to="human", intent="notice"), parent=env)
            return
        if control.action == "pause":
            self.ledger.move("pause")
        elif control.action == "resume" and self.ledger.move("resume"):
            await self.dispatch()
        elif control.action == "abort":
            who = control.by or env.sender
            reason = f"aborted by {who}" + (f": {control.reason}" if control.reason else "")
            await self.finish("aborted", reason, parent=env)

    # -- planning ----------------------------------------------------------------------------

    async def on_goal(self, env: Envelope, goal: Goal) -> None:
        """Start the run: ask for the first plan and start the watchdog."""
        if self.goal is not None:
            return
        self.goal, self.goal_id = goal, env.id
        self.budget.started = time.monotonic()
        self.spawn(self.watch.run(lambda: self.planning.pending), name="manager-watch")
        self.lessons = await self.recall(goal.text, parent=env)
        await self.request_plan("initial", parent=env)

    def worker_roles(self) -> list[str]:
        """Roles that can take tasks."""
        return sorted(r for r, c in self.capacity.items() if c > 0)

    async def request_plan(
        self,
        reason: str,
        *,
        parent: Envelope | str | None,
        errors: list[str] | None = None,
        critique: str | None = None,
        evidence: list[str] | None = None,
    ) -> None:
        """Ask the planner for the current revision (a new one unless it is a retry)."""
        assert self.goal is not None
        request = self.planning.request(
            reason,
            self.goal,
            self.worker_roles(),
            self.ledger,
            errors=errors,
            critique=critique,
            evidence=evidence,
        )
        await self.send(request, parent=parent)

    async def on_plan(self, env: Envelope, plan: Plan) -> None:
        """Act on what a plan decides: accept it (after a person's approval, when asked),
        send it back, or end the run."""
        if self.goal is None:
            return
        match self.planning.review(plan, self.goal, self.worker_roles(), self.ledger):
            case Stale():
                pass
            case Finish(status=status, reason=reason):
                await self.finish(status, reason, parent=env)
            case Refused(decision=decision, give_up=give_up):
                await self.send(decision, parent=env)
                if give_up is not None:
                    await self.finish("failed", give_up, parent=env)
                else:
                    await self.request_plan("invalid", parent=env, errors=decision.errors)
            case Valid(check=check) as valid:
                if self.human.settings.plan_approval:
                    self.spawn(self.approve(env, plan, check), name="manager-plan-approval")
                    return
                await self.send(valid.decision(plan.revision), parent=env)
                await self.accept(env, plan, check)

    async def approve(
        self, env: Envelope, plan: Plan, check: PlanCheck, *, ask: AskHuman | None = None
    ) -> None:
        """Ask a person to approve a valid plan (``ask``: wait for a question asked before a
        resume), then act on the verdict."""
        verdict = await approval.ask_approval(ask or self.ask_human, plan, check, parent=env)
        if self.ledger.phase is Phase.FINISHED or plan.revision != self.planning.revision:
            return
        decided = verdict.reply.message_id
        match verdict:
            case approval.Approve():
                await self.send(Valid(check).decision(plan.revision), parent=decided)
                await self.accept(env, plan, check)
            case approval.Reject(why=why):
                refused = PlanDecision(revision=plan.revision, accepted=False, errors=[why])
                await self.send(refused, parent=decided)
                await self.request_plan("rejected", parent=decided, critique=why)

    async def accept(self, env: Envelope, plan: Plan, check: PlanCheck) -> None:
        """Schedule an accepted plan and start dispatching."""
        self.schedule(plan, check)
        if not check.tasks:
            await self.finish("succeeded", "every task of the plan was already done", parent=env)
            return
        await self.dispatch()

    def schedule(self, plan: Plan, check: PlanCheck) -> None:
        """Make an accepted plan's tasks the schedule."""
        assert self.goal is not None
        capacity = self.presence.capacities(self.capacity)
        self.scheduler = scheduled(self.planning, self.ledger, self.goal, plan, check, capacity)

    # -- dispatching ---------------------------------------------------------------------------

    async def dispatch(self) -> None:
        """Start every ready task the roles have room for, highest priority first."""
        sched = self.scheduler
        phase = self.ledger.phase  # stopping: the budget check below ends the run when idle
        if sched is None or self.planning.pending or phase not in (Phase.RUNNING, Phase.STOPPING):
            return
        spent = self.budget.exhausted()
        if spent is not None:
            await self.watch.stop_for_budget(spent.reason, parent=None)
            return
        assert self.goal is not None
        batch = assignments(
            sched,
            self.ledger,
            self.goal,
            run_id=self.run_id,
            sender=self.sender,
            goal_id=self.goal_id,
            revision=self.planning.revision,
            notes=dict.fromkeys(self.capacity, self.lessons) if self.lessons else {},
        )
        # Stored in the background, side by side: a batch goes out at once, and the inbox
        # goes on with the next result instead of waiting for each store's ack.
        for env in batch:
            self.spawn(self.bus.publish(env), name=f"assign {env.task_id}")

    async def on_presence(self, env: Envelope, presence: Presence) -> None:
        """Track live workers; capacity that grew means more can be dispatched now."""
        self.presence.update(env.sender, presence)
        sched = self.scheduler
        if sched is not None and self.presence.resize(sched.capacity, self.capacity):
            await self.dispatch()

    async def on_result(self, env: Envelope, result: TaskResult) -> None:
        """Apply a result once (by the assignment it answers); then dispatch what is ready."""
        flight = self.ledger.land(env.parent_id)
        if flight is None or result.status == "cancelled":
            return
        await self._apply(env, flight, result)

    async def _apply(self, env: Envelope | None, flight: InFlight, result: TaskResult) -> None:
        """Apply a result to the schedule, and do what it decides."""
        retries, can_replan = self.settings.max_task_retries, self.budget.can_replan()
        match settle(self.scheduler, self.ledger, flight, result, revision=self.planning.revision,
                     max_retries=retries, can_replan=can_replan):  # fmt: skip
            case Finish(status=status, reason=reason):
                await self.finish(status, reason, parent=env)
                return
            case Replan(why=why):
                await self.replan("failure", why, parent=env)
            case Proceed():
                pass
        sched = self.scheduler
        if sched is not None and sched.finished and not self.planning.pending:
            if synthesize(self.ledger.completed, sched)[0] is None and self.budget.can_replan():
                await self.replan("failure", NO_ANSWER, parent=env)  # never "succeeded" empty
                return
            await self.finish("succeeded", "", parent=env)
            return
        if self.ledger.phase is Phase.STOPPING:
            if not self.ledger.inflight:
                await self.finish("budget_exhausted", self.watch.stop_reason, parent=env)
            return
        await self.dispatch()

    async def replan(
        self,
        reason: str,
        why: str,
        *,
        parent: Envelope | str | None,
        evidence: list[str] | None = None,
    ) -> None:
        """Cancel work in flight and ask for a revised plan that keeps completed work."""
        self.budget.spend.replans += 1
        running = self.scheduler.running() if self.scheduler else []
        if running:
            await self.send(
                Control(action="cancel", reason=f"replanning: {why}", task_ids=running),
                parent=parent,
            )
        self.ledger.inflight.clear()
        await self.request_plan(reason, parent=parent, critique=why, evidence=evidence)

    # -- critiques and budgets -----------------------------------------------------------------

    async def on_critique(self, env: Envelope, critique: Critique) -> None:
        """A loop, stall or drift makes the manager replan (bounded), ask a person, or stop."""
        if self.goal is None or self.planning.pending:
            return
        step = approval.critique_step(
            critique,
            revision=self.planning.revision,
            can_replan=self.budget.can_replan(),
            escalate=self.human.settings.escalate,
            attached=bool(self.human.attached),
            replans=self.budget.settings.replans,
        )
        match step:
            case approval.Revise(why=why):
                await self.replan("critique", why, parent=env, evidence=critique.evidence)
            case approval.Escalate(why=why):
                self.spawn(self.escalate(env, critique, why), name="manager-escalation")
            case approval.StopRun(reason=reason):
                await self.finish("budget_exhausted", reason, parent=env)
            case approval.Ignore():
                pass

    async def escalate(
        self, env: Envelope, critique: Critique, why: str, *, ask: AskHuman | None = None
    ) -> None:
        """The replan budget is spent: the person attached decides (default: stop). With
        ``ask``, the run already waits for a question asked before a resume."""
        if not self.ledger.move("escalate") and ask is None:
            return  # escalating already (or stopping): the run waits for the person
        replans = self.budget.settings.replans
        if ask is None:
            why_paused = "waiting for a person (escalation)"
            await self.send(Control(action="pause", reason=why_paused, by="manager"), parent=env)
        try:
            choice = await approval.ask_escalation(
                ask or self.ask_human, critique, replans, parent=env
            )
        finally:
            self.ledger.move("answered")
        if self.ledger.phase is Phase.FINISHED:
            return
        resumed = Control(action="resume", reason=f"{choice.reply.by} answered", by="manager")
        await self.send(resumed, parent=choice.reply.message_id)
        reply = choice.reply
        match choice:
            case approval.Replan(guidance=guidance):
                extra = f" Guidance from {reply.by}: {guidance}" if guidance else ""
                evidence = list(critique.evidence)
                await self.replan(
                    "escalation", why + extra, parent=reply.message_id, evidence=evidence
                )
            case approval.CarryOn():
                self.log.info("escalation: carrying on", by=reply.by)
            case approval.Stop(who=who):
                reason = approval.budget_stop_reason(critique, replans)
                await self.finish("budget_exhausted", f"{reason}; {who}", parent=reply.message_id)

    async def _time_out(self, flight: InFlight) -> None:
        """A task past its timeout: cancel it and fail this attempt."""
        limit, ids, why = self.settings.task_timeout_s, [flight.task_id], "task timeout"
        await self.send(Control(action="cancel", reason=why, task_ids=ids, timeout_s=limit))
        await self._apply(None, flight, flight.timed_out(limit))

    # -- the end -------------------------------------------------------------------------------

    async def finish(self, status: str, reason: str, *, parent: Envelope | str | None) -> None:
        """Publish the final message (once) after stopping work in flight."""
        if not self.ledger.move("finish"):
            return
        ledger = self.ledger
        if status in ("aborted", "budget_exhausted", "failed") and ledger.inflight:
            control = Control(
                action="budget_exhausted" if status == "budget_exhausted" else "cancel",
                reason=reason,
                task_ids=ledger.running(),
            )
            await self.send(control, parent=parent)
        goal = stated(self.goal) if self.goal is not None else ""
        final = final_message(
            status, reason, ledger, self.scheduler, self.planning.revision, self.budget, goal
        )
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        await self.send(final, parent=parent_id)
        self.log.info("final", status=status, reason=reason)
