"""`RunState`: what the live view and the summary show, folded from the run's messages.

Spend is folded with `roles.budget.Spend`, as the manager's budget tracker folds it, so
the view shows the numbers the budgets are enforced on; event lines come from
`society.view.describe`.
"""

from __future__ import annotations

import contextlib
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import assert_never

from bus import Envelope
from bus.payloads import (
    REPLANS,
    Answer,
    Chat,
    Control,
    Critique,
    DeadLetter,
    ExecRequest,
    ExecResult,
    Final,
    Goal,
    Lesson,
    Plan,
    PlanDecision,
    PlanRequest,
    Presence,
    Question,
    Rating,
    Recall,
    TaskAssignment,
    TaskResult,
    TaskSpec,
    ToolCall,
    Usage,
)
from roles.budget import Spend
from society.view.describe import describe

__all__ = ["STATES", "RunState", "TaskView"]


STATES = (
    "running",
    "pending",
    "proposed",
    "done",
    "failed",
    "cancelled",
    "refused",
    "superseded",
    "merged",
)
"""Every state a task is shown in: ``proposed`` (its plan awaits a decision), ``pending``
(accepted, not started; `RunState.waiting_for` says why), ``refused`` (its plan was refused), ``superseded`` (a newer plan dropped it),
``merged`` (a duplicate folded into another task)."""

_SETTLED = ("done", "failed", "cancelled", "refused", "superseded", "merged")


@dataclass
class TaskView:
    """One task as the view shows it."""

    id: str
    role: str
    description: str
    state: str = "pending"
    attempts: int = 0
    note: str = ""
    depends_on: tuple[str, ...] = ()
    value: float = 1.0
    effort: float = 1.0
    revision: int = 0
    rate_wait_s: float = 0.0
    """Seconds its model calls waited for a rate limit."""


@dataclass
class RunState:
    """Folded state of a run, updated message by message (each message costs the same
    whatever the plan's size: counts per state are kept, not recounted)."""

    run_id: str
    tasks: dict[str, TaskView] = field(default_factory=dict)
    revision: int = 0
    plan_tries: int = 0
    spend: Spend = field(default_factory=Spend)
    messages: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    critiques: list[Critique] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    final: Final | None = None
    first_ts: int | None = None
    last_ts: int | None = None
    counts: Counter[str] = field(default_factory=Counter)
    """Tasks per state."""
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=8))
    """The tasks that changed last (newest last)."""
    paused: str | None = None
    """Why the run is paused, while it is."""
    asking: dict[str, str] = field(default_factory=dict)
    """Question id -> the task (or "plan") waiting for a person's answer."""
    rate_wait_s: float = 0.0
    """Seconds model calls waited for rate limits, over the run."""
    heartbeats: int = 0
    role_calls: Counter[str] = field(default_factory=Counter)
    """Model calls answered, per role that made them (which roles did work)."""
    """Presence heartbeats seen (the log keeps none; liveness does not need them there)."""
    _running: set[str] = field(default_factory=set)
    _proposed: dict[int, list[TaskSpec]] = field(default_factory=dict)

    def _set(self, view: TaskView, state: str) -> None:
        if view.state != state:
            self.counts[view.state] -= 1
            self.counts[state] += 1
            view.state = state
        if self.recent and self.recent[-1] == view.id:
            return
        with contextlib.suppress(ValueError):
            self.recent.remove(view.id)
        self.recent.append(view.id)

    def _add(self, spec: TaskSpec, state: str, revision: int) -> TaskView:
        view = self.tasks.get(spec.id)
        if view is None:
            view = self.tasks[spec.id] = TaskView(spec.id, spec.role, spec.description, state)
            self.counts[state] += 1
        view.role, view.description, view.revision = spec.role, spec.description, revision
        view.depends_on, view.value, view.effort = tuple(spec.depends_on), spec.value, spec.effort
        self._set(view, state)
        return view

    def waiting_for(self, view: TaskView) -> str:
        """Why a task that is not running waits ("" when it does not)."""
        if view.state in _SETTLED:
            return ""
        asked = set(self.asking.values())
        if view.state == "proposed":
            return "a person's approval of its plan" if "plan" in asked else "its plan's decision"
        if view.id in asked:
            return "a person's answer"
        if view.state == "running":
            return ""
        if self.paused is not None:
            return "the run to be resumed"
        open_deps = [d for d in view.depends_on if (t := self.tasks.get(d)) and t.state != "done"]
        if open_deps:
            return "dependencies: " + ", ".join(open_deps[:5]) + ("…" if len(open_deps) > 5 else "")
        return "a free worker"

    @property
    def running(self) -> set[str]:
        """The tasks in flight."""
        return self._running

    @property
    def calls(self) -> int:
        """Model calls answered."""
        return self.spend.calls

    @property
    def tokens_in(self) -> int:
        """Prompt tokens."""
        return self.spend.tokens_in

    @property
    def tokens_out(self) -> int:
        """Answer tokens."""
        return self.spend.tokens_out

    @property
    def cost(self) -> float:
        """Money spent on models."""
        return self.spend.cost

    @property
    def sandbox_s(self) -> float:
        """Seconds of code execution."""
        return self.spend.sandbox_s

    @property
    def replans(self) -> int:
        """Plan revisions after the first (not counting refused tries)."""
        return self.spend.replans

    def event(self, text: str) -> str:
        """Remember a notable event (the view shows the last few)."""
        self.events.append(text)
        del self.events[:-200]
        return text

    def apply(self, env: Envelope) -> str | None:
        """Fold one message in; returns a one-line description of notable events."""
        self.messages += 1
        self.first_ts = self.first_ts or env.ts
        self.last_ts = env.ts
        p = env.payload
        match p:
            case PlanRequest():
                if p.reason in REPLANS:
                    self.spend.replans += 1
            case Plan():
                if not p.error:
                    self.plan_tries += 1
                    self._proposed[p.revision] = list(p.tasks)
                    for t in p.tasks:
                        prev = self.tasks.get(t.id)
                        if prev is None or prev.state in ("refused", "superseded", "proposed"):
                            self._add(t, "proposed", p.revision)
            case PlanDecision():
                self._decided(p)
            case TaskAssignment():
                view = self.tasks.get(p.task.id) or self._add(p.task, "pending", p.plan_revision)
                # as assigned: a raw plan's repeated ids ("compute" five times) showed the last
                view.role, view.description = p.task.role, p.task.description
                view.attempts = p.attempt
                self._set(view, "running")
                self._running.add(p.task.id)
                self.in_flight = len(self._running)
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            case TaskResult():
                self._running.discard(p.task_id)
                self.in_flight = len(self._running)
                done = self.tasks.get(p.task_id)
                stopped = done is not None and done.state == "cancelled" and p.status != "done"
                if done is not None and not stopped:  # a cancelled task's late result stays so
                    self._set(done, "failed" if p.status == "budget_exhausted" else p.status)
                    done.note = (p.error or p.summary or "")[:120]
            case Usage() | ToolCall():
                if self.spend.add_usage(p) and isinstance(p, Usage) and p.kind == "model":
                    self.role_calls[env.role] += 1
                if isinstance(p, Usage) and p.rate_wait_s > 0:
                    self.rate_wait_s += p.rate_wait_s
                    waited = self.tasks.get(env.task_id or "")
                    if waited is not None:
                        waited.rate_wait_s += p.rate_wait_s
            case Critique():
                self.critiques.append(p)
            case Final():
                self.final = p
                self.paused = None
                self.asking.clear()
                self._cancel(list(self._running), "the run ended while it ran")
            case Question():
                self.asking[p.question_id] = (
                    "plan" if p.kind == "plan_approval" else env.task_id or "run"
                )
            case Answer():
                self.asking.pop(p.question_id, None)
            case Control():
                if p.action in ("cancel", "budget_exhausted") and p.timeout_s is None:
                    self._cancel(p.task_ids, p.reason or p.action)
                if p.action == "pause":
                    self.paused = p.reason or f"paused by {p.by or env.sender}"
                elif p.action in ("resume", "resumed"):
                    self.paused = None
            case Presence():
                self.heartbeats += p.status == "heartbeat"
            case (
                Goal()
                | ExecRequest()
                | ExecResult()
                | Chat()
                | Rating()
                | Lesson()
                | Recall()
                | DeadLetter()
            ):
                pass
            case _:
                assert_never(p)
        line = describe(p, env).event
        return self.event(line) if line is not None else None

    def _cancel(self, task_ids: list[str], why: str) -> None:
        """Tasks stopped while they ran (an abort, a budget, the run's end)."""
        for task_id in task_ids:
            view = self.tasks.get(task_id)
            if view is not None and view.state == "running":
                self._set(view, "cancelled")
                view.note = why[:120]
            self._running.discard(task_id)
        self.in_flight = len(self._running)

    def _decided(self, p: PlanDecision) -> None:
        """A plan accepted (its tasks pending, duplicates merged, older plans' open tasks
        superseded) or refused (its tasks refused)."""
        proposed = self._proposed.pop(p.revision, [])
        if not p.accepted:
            for t in proposed:
                view = self.tasks.get(t.id)
                if view is not None and view.state == "proposed":
                    self._set(view, "refused")
                    view.note = "; ".join(p.errors)[:120]
            return
        self.revision = p.revision
        ids = {t.id for t in proposed}
        for t in proposed:
            view = self.tasks[t.id] if t.id in self.tasks else self._add(t, "pending", p.revision)
            if t.id in p.merged:
                self._set(view, "merged")
                view.note = f"merged into {p.merged[t.id]}"
            elif view.state == "proposed":
                self._set(view, "pending")
        for view in list(self.tasks.values()):
            if view.id not in ids and view.state in ("pending", "proposed"):
                self._set(view, "superseded")
                view.note = f"not in plan {p.revision}"

    @property
    def wall_s(self) -> float:
        """Seconds between the first and the last message."""
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return (self.last_ts - self.first_ts) / 1e6
