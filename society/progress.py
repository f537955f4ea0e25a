"""`RunState`: what the live view and the summary show, folded from the run's messages.

Spend is folded with `roles.budget.Spend`, as the manager's budget tracker folds it, so
the view shows the numbers the budgets are enforced on; event lines come from
`society.describe`.
"""

from __future__ import annotations

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
    ToolCall,
    Usage,
)
from roles.budget import Spend
from society.describe import describe

__all__ = ["RunState", "TaskView"]


@dataclass
class TaskView:
    """One task as the view shows it."""

    id: str
    role: str
    description: str
    state: str = "pending"
    attempts: int = 0
    note: str = ""


@dataclass
class RunState:
    """Folded state of a run, updated message by message."""

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
    _running: set[str] = field(default_factory=set)

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
                    self.revision = p.revision
                    self.plan_tries += 1
                    for t in p.tasks:
                        prev = self.tasks.get(t.id)
                        if prev is None or prev.state != "done":
                            self.tasks[t.id] = TaskView(t.id, t.role, t.description)
            case TaskAssignment():
                view = self.tasks.setdefault(
                    p.task.id, TaskView(p.task.id, p.task.role, p.task.description)
                )
                view.state, view.attempts = "running", p.attempt
                self._running.add(p.task.id)
                self.in_flight = len(self._running)
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            case TaskResult():
                self._running.discard(p.task_id)
                self.in_flight = len(self._running)
                done = self.tasks.get(p.task_id)
                if done is not None:
                    done.state = p.status
                    done.note = (p.error or p.summary or "")[:120]
            case Usage() | ToolCall():
                self.spend.add_usage(p)
            case Critique():
                self.critiques.append(p)
            case Final():
                self.final = p
            case (
                Goal()
                | PlanDecision()
                | ExecRequest()
                | ExecResult()
                | Question()
                | Answer()
                | Chat()
                | Rating()
                | Lesson()
                | Recall()
                | Control()
                | Presence()
                | DeadLetter()
            ):
                pass
            case _:
                assert_never(p)
        line = describe(p, env).event
        return self.event(line) if line is not None else None

    @property
    def wall_s(self) -> float:
        """Seconds between the first and the last message."""
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return (self.last_ts - self.first_ts) / 1e6
