"""`RunState`: what the live view and the summary show, folded from the run's messages."""

from __future__ import annotations

from dataclasses import dataclass, field

from bus import Envelope
from bus.payloads import (
    Answer,
    Chat,
    Control,
    Critique,
    ExecResult,
    Final,
    Plan,
    PlanDecision,
    PlanRequest,
    Presence,
    Question,
    Rating,
    TaskAssignment,
    TaskResult,
    Usage,
)

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
    replans: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    sandbox_s: float = 0.0
    messages: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    critiques: list[Critique] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    final: Final | None = None
    first_ts: int | None = None
    last_ts: int | None = None
    _running: set[str] = field(default_factory=set)

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
                if p.reason not in ("initial", "invalid"):
                    self.replans += 1
                    return self.event(f"replan {p.revision} ({p.reason}): {p.critique or ''}"[:200])
                return None
            case Plan():
                if p.error:
                    return self.event(f"planner failed: {p.error}"[:200])
                self.revision = p.revision
                self.plan_tries += 1
                for t in p.tasks:
                    prev = self.tasks.get(t.id)
                    if prev is None or prev.state != "done":
                        self.tasks[t.id] = TaskView(t.id, t.role, t.description)
                return self.event(f"plan {p.revision}: {len(p.tasks)} tasks")
            case PlanDecision():
                if p.accepted:
                    merged = f", merged {p.merged}" if p.merged else ""
                    return self.event(f"plan {p.revision} accepted{merged}")
                return self.event(f"plan {p.revision} refused: {'; '.join(p.errors)}"[:300])
            case TaskAssignment():
                view = self.tasks.setdefault(
                    p.task.id, TaskView(p.task.id, p.task.role, p.task.description)
                )
                view.state, view.attempts = "running", p.attempt
                self._running.add(p.task.id)
                self.in_flight = len(self._running)
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                return self.event(f"▶ {p.task.id} ({p.task.role}) attempt {p.attempt}")
            case TaskResult():
                self._running.discard(p.task_id)
                self.in_flight = len(self._running)
                done = self.tasks.get(p.task_id)
                if done is not None:
                    done.state = p.status
                    done.note = (p.error or p.summary or "")[:120]
                mark = {"done": "✓", "failed": "✗"}.get(p.status, "■")
                detail = f": {p.error}" if p.error else ""
                return self.event(f"{mark} {p.task_id} {p.status}{detail}"[:200])
            case ExecResult():
                if p.exit_code == 0 and not p.error:
                    return None
                why = p.error or ("timed out" if p.timed_out else f"exit {p.exit_code}")
                last = (p.stderr.strip().splitlines() or [""])[-1]
                return self.event(f"  {env.task_id}: code failed ({why}) {last}"[:200])
            case Usage():
                if p.kind == "model" and p.answer is None:
                    return None  # failed or cancelled: not an answered call
                if p.kind == "model":
                    self.calls += 1
                    self.tokens_in += p.tokens_in
                    self.tokens_out += p.tokens_out
                    self.cost += p.cost
                else:
                    self.sandbox_s += p.sandbox_s
                return None
            case Critique():
                self.critiques.append(p)
                return self.event(f"critic: {p.detector} → {p.verdict}: {p.summary}"[:200])
            case Question():
                first = (p.text.splitlines() or [""])[0]
                return self.event(
                    f"question {p.question_id} for the human ({p.kind.replace('_', ' ')}, "
                    f"default {p.default!r} after {p.timeout_s:g}s): {first}"[:300]
                )
            case Answer() if p.by == "default":
                return self.event(f"no answer to {p.question_id}: {p.note}"[:300])
            case Answer():
                verdict = {True: "approves", False: "rejects", None: "answers"}[p.approved]
                said = f": {p.text}" if p.text and p.text != "approve" else ""
                return self.event(f"{p.by} {verdict} {p.question_id}{said}"[:300])
            case Chat() if env.role == "human" or p.to == "human":
                return self.event(f"{p.by or env.role} → {p.to or 'everyone'}: {p.text}"[:300])
            case Rating():
                return self.event(f"{p.by} rates {p.task_id} {p.score}/5 {p.comment}"[:200])
            case Presence() if p.role == "human" and p.status != "heartbeat":
                return self.event(f"{env.instance} {'attached' if p.status == 'up' else 'left'}")
            case Control():
                return self.event(f"control: {p.action} {p.reason}"[:200])
            case Final():
                self.final = p
                return self.event(f"final: {p.status} {p.reason}"[:200])
            case _:
                return None

    @property
    def wall_s(self) -> float:
        """Seconds between the first and the last message."""
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return (self.last_ts - self.first_ts) / 1e6
