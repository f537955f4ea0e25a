"""The manager: asks for a plan, validates it, dispatches ready tasks in priority order as
far as the roles' capacity allows, collects results, replans on failure or critique, enforces
budgets, and publishes the final message.

Every decision is a message in the log: plan requests (with the reason), plan decisions
(with the errors), assignments, cancellations, and the final message. Plan approval and
escalation to a person live in `roles.manager.approval`.

Plans and results arrive through work queues (nothing is lost while the manager is
disconnected); a result is applied once, by the assignment it answers (task id and
attempt), so a duplicate from a redelivered task changes nothing. Presence tells the
manager which roles have live workers: their capacity bounds dispatch, and a needed role
nobody serves fails the run after the presence wait.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from pydantic import JsonValue

from bus import Envelope, subjects
from bus.payloads import (
    Artifact,
    Control,
    Critique,
    Final,
    Goal,
    Plan,
    PlanDecision,
    PlanRequest,
    Presence,
    TaskAssignment,
    TaskResult,
    Usage,
)
from bus.subjects import Channel
from bus.workqueue import QueueSpec
from roles.base import Role, RoleContext
from roles.budget_guard import BUDGET_PREFIX
from roles.manager.approval import HumanSteps, budget_stop_reason
from roles.manager.budget import BudgetSettings, BudgetTracker
from roles.manager.final import final_answer, final_summary
from roles.manager.graph import PlanCheck, validate_plan
from roles.manager.presence import PresenceRegistry
from roles.manager.scheduler import Scheduler
from roles.memory import Memory
from roles.settings import ManagerSettings

__all__ = ["Manager"]


@dataclass
class _InFlight:
    task_id: str
    attempt: int
    revision: int
    started: float
    role: str = ""


class Manager(Role):
    """Owns the run's plan, schedule and budgets."""

    name = "manager"

    def __init__(self, ctx: RoleContext) -> None:
        super().__init__(ctx)
        settings = ctx.settings
        assert isinstance(settings, ManagerSettings)
        self.settings = settings
        self.capacity: dict[str, int] = dict(ctx.extras.get("capacity", {}))
        budgets = ctx.extras.get("budgets")
        self.budget = BudgetTracker(
            budgets if isinstance(budgets, BudgetSettings) else BudgetSettings()
        )
        self.goal: Goal | None = None
        self.goal_id: str | None = None
        self.revision = 0
        self.attempt = 0
        self.criteria: list[str] = []
        self.scheduler: Scheduler | None = None
        self.completed: dict[str, dict[str, JsonValue]] = {}
        self.failed: dict[str, str] = {}
        self.artifacts: list[Artifact] = []
        self.inflight: dict[str, _InFlight] = {}
        self.replan_pending = False
        self.paused = False
        self.finished = False
        self.stopping: str | None = None
        self.last_critique: Critique | None = None
        self.retry_notes: dict[str, str] = {}
        """Why a task's last attempt failed, told to its next attempt."""
        self.steps = HumanSteps(self)
        self.presence = PresenceRegistry(ctx.presence)

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """What the manager steers by besides its inbox queue (goal, usage, presence)."""
        run = self.run_id
        own = [
            (subjects.subject(run, Channel.GOAL), None),
            (subjects.subject(run, Channel.USAGE), None),
            (subjects.subject(run, Channel.PRESENCE), None),
        ]
        return own + super().subscriptions()

    def queues(self) -> list[QueueSpec]:
        """Plans, results and critiques: one at a time, in the order the log stored them."""
        inbox = (Channel.PLAN, Channel.RESULT, Channel.CRITIQUE)
        return [QueueSpec("manager", inbox, ordered=True)]

    # -- routing ---------------------------------------------------------------------------

    async def handle(self, env: Envelope) -> None:
        """Route by payload type."""
        if self.finished:
            return
        payload = env.payload
        match payload:
            case Goal():
                await self.on_goal(env, payload)
            case Plan():
                await self.on_plan(env, payload)
            case TaskResult():
                await self.on_result(env, payload)
            case Usage():
                await self.on_usage(env, payload)
            case Critique():
                await self.on_critique(env, payload)
            case Presence():
                await self.on_presence(env, payload)
            case _:
                pass

    async def on_control(self, env: Envelope, control: Control) -> None:
        """Pause, resume or abort on request (a person or a tool)."""
        if self.finished or env.sender == self.sender:
            return
        if control.action == "pause":
            self.paused = True
        elif control.action == "resume":
            self.paused = False
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
        self.spawn(self._watchdog(), name="manager-watchdog")
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
        if reason == "invalid":
            self.attempt += 1
        else:
            self.revision += 1
            self.attempt = 1
        self.replan_pending = True
        await self.send(
            PlanRequest(
                goal=self.goal.text,
                revision=self.revision,
                attempt=self.attempt,
                reason=reason,  # type: ignore[arg-type]
                goal_inputs=sorted(self.goal.inputs),
                roles=self.worker_roles(),
                errors=errors or [],
                completed=self.completed,
                failed=self.failed,
                critique=critique,
                evidence=evidence or [],
                success_criteria=self.criteria,
            ),
            parent=parent,
        )

    async def on_plan(self, env: Envelope, plan: Plan) -> None:
        """Validate a plan; accept it, send it back, or give up."""
        if plan.revision != self.revision or not self.replan_pending or self.goal is None:
            return
        if plan.error:
            if plan.error.startswith(BUDGET_PREFIX):
                await self.finish("budget_exhausted", plan.error[len(BUDGET_PREFIX) :], parent=env)
            else:
                reason = f"the planner could not produce a plan: {plan.error}"
                await self.finish("failed", reason, parent=env)
            return
        available = set(self.goal.inputs) | {
            name for outputs in self.completed.values() for name in outputs
        }
        check = validate_plan(
            plan.tasks,
            roles=set(self.worker_roles()),
            available=available,
            completed=set(self.completed),
            threshold=self.settings.duplicate_threshold,
        )
        if check.ok and self.steps.wants_approval:
            self.spawn(self.steps.approve(env, plan, check), name="manager-plan-approval")
            return
        await self.send(
            PlanDecision(
                revision=plan.revision,
                accepted=check.ok,
                errors=check.errors,
                merged=check.merged,
                kept=check.kept,
            ),
            parent=env,
        )
        if not check.ok:
            if self.attempt >= self.settings.max_plan_tries:
                reason = f"no valid plan after {self.attempt} tries; last errors: " + "; ".join(
                    check.errors
                )
                await self.finish("failed", reason, parent=env)
            else:
                await self.request_plan("invalid", parent=env, errors=check.errors)
            return
        await self.accept(env, plan, check)

    async def accept(self, env: Envelope, plan: Plan, check: PlanCheck) -> None:
        """Schedule an accepted plan and start dispatching."""
        assert self.goal is not None
        self.replan_pending = False
        self.criteria = self.criteria or plan.success_criteria
        values: dict[str, JsonValue] = dict(self.goal.inputs)
        for outputs in self.completed.values():
            values.update(outputs)
        capacity = self.presence.capacities(self.capacity)
        self.scheduler = Scheduler(check.tasks, capacity, values, check.aliases)
        self.failed = {}
        if not check.tasks:
            await self.finish("succeeded", "every task of the plan was already done", parent=env)
            return
        await self.dispatch()

    # -- dispatching ---------------------------------------------------------------------------

    async def dispatch(self) -> None:
        """Start every ready task the roles have room for, highest priority first."""
        sched = self.scheduler
        if sched is None or self.finished or self.paused or self.replan_pending:
            return
        reason = self.budget.exhausted()
        if reason is not None:
            await self.stop_for_budget(reason, parent=None)
            return
        assert self.goal is not None
        notes = self._notes()
        batch = []
        for spec in sched.next_batch():
            attempt = sched.status[spec.id].attempts
            assignment = TaskAssignment(
                task=spec,
                goal=self.goal.text,
                inputs=sched.inputs_for(spec),
                attempt=attempt,
                plan_revision=self.revision,
                notes=[*notes.get(spec.role, []), *self._retry_note(spec.id)],
            )
            env = Envelope.new(
                self.run_id, self.sender, assignment, parent_id=self.goal_id, task_id=spec.id
            )
            # In flight before it is out, so its result can never come back unknown.
            self.inflight[env.id] = _InFlight(
                spec.id, attempt, self.revision, time.monotonic(), spec.role
            )
            batch.append(env)
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

    def _retry_note(self, task_id: str) -> list[str]:
        note = self.retry_notes.get(task_id)
        return [note] if note else []

    def _notes(self) -> dict[str, list[str]]:
        memory = self.ctx.extras.get("memory")
        if not isinstance(memory, Memory) or self.goal is None:
            return {}
        recall = int(self.ctx.extras.get("recall", 3))
        lessons = [
            hit.text for hit in memory.search(self.goal.text, recall, before_run=self.run_id)
        ]
        return dict.fromkeys(self.capacity, lessons) if lessons else {}

    async def on_result(self, env: Envelope, result: TaskResult) -> None:
        """Apply a result once (by the assignment it answers); then dispatch what is ready."""
        flight = self.inflight.pop(env.parent_id or "", None)
        if flight is None or result.status == "cancelled":
            return
        await self._apply(env, flight, result)

    async def _apply(self, env: Envelope | None, flight: _InFlight, result: TaskResult) -> None:
        sched = self.scheduler
        self.artifacts += result.artifacts
        current = (
            sched is not None
            and flight.revision == self.revision
            and flight.task_id in sched.status
        )
        if result.status == "done":
            spec = sched.status[flight.task_id].spec if current and sched else None
            missing = [o for o in (spec.outputs if spec else []) if o not in result.outputs]
            if missing:
                result = result.model_copy(
                    update={"status": "failed", "error": f"did not produce outputs {missing}"}
                )
        if result.status == "done":
            self.completed[flight.task_id] = dict(result.outputs)
            if current and sched is not None:
                sched.complete(flight.task_id, result.outputs)
        elif current and sched is not None:
            await self._on_failure(env, sched, flight, result.error or "failed")
            if self.finished:
                return
        if sched is not None and current and sched.finished and not self.replan_pending:
            await self.finish("succeeded", "", parent=env)
            return
        if self.stopping is not None:
            if not self.inflight:
                await self.finish("budget_exhausted", self.stopping, parent=env)
            return
        await self.dispatch()

    async def _on_failure(
        self, env: Envelope | None, sched: Scheduler, flight: _InFlight, error: str
    ) -> None:
        if error.startswith(BUDGET_PREFIX):
            sched.fail(flight.task_id, error)
            await self.finish("budget_exhausted", error[len(BUDGET_PREFIX) :], parent=env)
            return
        st = sched.status[flight.task_id]
        if st.attempts <= self.settings.max_task_retries:
            self.retry_notes[flight.task_id] = f"Attempt {st.attempts} failed: {error[:500]}"
            sched.retry(flight.task_id)
            return
        sched.fail(flight.task_id, error)
        self.failed[flight.task_id] = error
        if self.budget.can_replan():
            await self.replan("failure", f"task {flight.task_id} failed: {error}", parent=env)
        else:
            await self.finish(
                "failed",
                f"task {flight.task_id} failed after {st.attempts} attempts: {error}",
                parent=env,
            )

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
        self.inflight.clear()
        await self.request_plan(reason, parent=parent, critique=why, evidence=evidence)

    # -- critiques and budgets -----------------------------------------------------------------

    async def on_critique(self, env: Envelope, critique: Critique) -> None:
        """A loop, stall or drift makes the manager replan (bounded), else stop."""
        if critique.verdict == "ok" or self.goal is None or self.replan_pending:
            return
        if critique.revision and critique.revision < self.revision:
            return  # about a plan that has been replaced already
        self.last_critique = critique
        why = f"critic ({critique.detector}): {critique.summary}"
        if critique.recommendation:
            why += f" Recommendation: {critique.recommendation}"
        if self.budget.can_replan():
            await self.replan("critique", why, parent=env, evidence=critique.evidence)
        elif self.steps.can_escalate():
            self.spawn(self.steps.escalate(env, critique, why), name="manager-escalation")
        else:
            reason = budget_stop_reason(critique, self.budget.settings.replans)
            await self.finish("budget_exhausted", reason + self.steps.unasked_note(), parent=env)

    async def on_usage(self, env: Envelope, usage: Usage) -> None:
        """Add up spend; stop when a budget is reached."""
        if usage.kind == "model" and usage.answer is None:
            return  # a failed or cancelled call: nothing was answered (the guard released it)
        if usage.kind == "model":
            self.budget.add_model_call(usage.tokens_in, usage.tokens_out, usage.cost)
        else:
            self.budget.add_sandbox(usage.sandbox_s)
        reason = self.budget.exhausted()
        if reason is not None:
            await self.stop_for_budget(reason, parent=env)

    async def stop_for_budget(self, reason: str, *, parent: Envelope | None) -> None:
        """Dispatch nothing more; let tasks whose last call already ran report, then finish.

        Tasks in flight cannot spend more (the budget guard refuses their next call), so
        their results are worth waiting for, briefly; the grace then cancels the rest.
        """
        if self.stopping is None:
            self.stopping = reason
            self.spawn(self._budget_grace(), name="manager-budget-grace")
        if not self.inflight:
            await self.finish("budget_exhausted", reason, parent=parent)

    async def _budget_grace(self) -> None:
        await asyncio.sleep(self.settings.budget_grace_s)
        if self.stopping is not None:
            await self.finish("budget_exhausted", self.stopping, parent=None)

    async def _watchdog(self) -> None:
        """Wall-clock budget and task timeouts."""
        while not self.finished:
            await asyncio.sleep(0.25)
            reason = self.budget.exhausted()
            if reason is not None:
                await self.finish("budget_exhausted", reason, parent=None)
                return
            needed = {f.role for f in self.inflight.values()}
            for role in self.presence.overdue(
                needed | ({"planner"} if self.replan_pending else set())
            ):
                await self.finish("failed", self.presence.missing(role), parent=None)
                return
            now = time.monotonic()
            limit = self.settings.task_timeout_s
            for mid, flight in list(self.inflight.items()):
                if now - flight.started > limit and mid in self.inflight:
                    del self.inflight[mid]
                    await self.send(
                        Control(action="cancel", reason="task timeout", task_ids=[flight.task_id])
                    )
                    timeout = TaskResult(
                        task_id=flight.task_id,
                        role="manager",
                        attempt=flight.attempt,
                        status="failed",
                        error=f"no result within {limit:g}s",
                    )
                    await self._apply(None, flight, timeout)

    # -- the end -------------------------------------------------------------------------------

    async def finish(self, status: str, reason: str, *, parent: Envelope | str | None) -> None:
        """Publish the final message (once) after stopping work in flight."""
        if self.finished:
            return
        self.finished = True
        if status in ("aborted", "budget_exhausted", "failed") and self.inflight:
            running = sorted({f.task_id for f in self.inflight.values()})
            control = Control(
                action="budget_exhausted" if status == "budget_exhausted" else "cancel",
                reason=reason,
                task_ids=running,
            )
            await self.send(control, parent=parent)
        answer, outputs = final_answer(self.completed, self.scheduler)
        summary = final_summary(
            len(self.completed), len(self.failed), self.scheduler, self.revision, self.budget
        )
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        await self.send(
            Final(
                status=status,  # type: ignore[arg-type]
                answer=answer,
                outputs=outputs,
                artifacts=self.artifacts,
                summary=summary,
                reason=reason,
            ),
            parent=parent_id,
        )
        self.log.info("final", status=status, reason=reason)
