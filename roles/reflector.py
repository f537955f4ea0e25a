"""The reflector: turns failed tasks, critiques and human ratings into lessons in
long-term memory, which the planner and the manager recall into later prompts.

It learns only from the goal's work: not from a task the model could not be reached for
or whose workers died, not from anything after an abort or a budget stop, and not from
how a run ended (an interrupt, an abort, a budget or an outage teaches nothing about the
work). Each lesson carries the goal, run and message it came from; one equal to a lesson
already kept is not stored or announced again.

Uses: long-term memory (without one it still announces its lessons on the bus).
"""

from __future__ import annotations

from typing import assert_never

from bus import Envelope, payloads, subjects
from bus.payloads import (
    Chat,
    Control,
    Critique,
    Final,
    Goal,
    Lesson,
    Rating,
    TaskAssignment,
    TaskResult,
)
from bus.subjects import Channel
from roles.base import Role
from roles.context import RoleContext
from roles.settings import ReflectorSettings

__all__ = ["IGNORED", "Reflector"]

IGNORED = (
    payloads.PlanRequest, payloads.Plan, payloads.PlanDecision, payloads.ExecRequest,
    payloads.ExecResult, payloads.Question, payloads.Answer, Chat, Lesson, payloads.Usage,
    payloads.ToolCall, payloads.Recall, Control, payloads.Presence, payloads.DeadLetter,
)  # fmt: skip
"""What the reflector hears and learns nothing from (controls come by `on_control`)."""


class Reflector(Role[ReflectorSettings]):
    """Writes lessons; the memory outlives the run (a folder shared across runs)."""

    name = "reflector"

    def __init__(self, ctx: RoleContext[ReflectorSettings]) -> None:
        super().__init__(ctx)
        self.memory = ctx.deps.memory
        self.goal = ""
        self.tasks: dict[str, str] = {}
        self.stopped = False
        """The run was aborted or stopped by a budget: what follows teaches nothing."""
        self.paused = False
        """The run is paused (a person is deciding): no lessons until it resumes."""
        self.final_at: int | None = None
        """When the final message was made (µs): ratings are kept for a window after it."""

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """Assignments, results, critiques, ratings and the final message."""
        run = self.run_id
        return [
            (subjects.subject(run, Channel.GOAL), None),
            (subjects.run_wildcard(run, Channel.TASK), None),
            (subjects.subject(run, Channel.RESULT), None),
            (subjects.subject(run, Channel.CRITIQUE), None),
            (subjects.run_wildcard(run, Channel.HUMAN_ANSWER), None),
            (subjects.subject(run, Channel.FINAL), None),
            *super().subscriptions(),
        ]

    async def handle(self, env: Envelope) -> None:
        """Learn from what went wrong (and from what people said)."""
        p = env.payload
        if isinstance(p, IGNORED):
            return
        match p:
            case Goal():
                self.goal = p.text
            case TaskAssignment():
                self.tasks[p.task.id] = p.task.description
                if not self.goal:
                    self.goal = p.goal
            case TaskResult():
                if p.status == "failed" and p.cause == "work":
                    desc = self.tasks.get(p.task_id, p.task_id)
                    await self.learn(
                        f"A {p.role} task like '{desc[:160]}' failed: {(p.error or '')[:300]}. "
                        "Next time check this cause first and plan around it.",
                        task_kind=p.role,
                        parent=env,
                    )
            case Critique():
                if p.verdict != "ok":
                    await self.learn(
                        f"The critic found a {p.verdict} ({p.detector}) while working on "
                        f"'{self.goal[:160]}': {p.summary}. {p.recommendation}",
                        task_kind="plan",
                        parent=env,
                    )
            case Rating():
                late = self.deps.human.ratings_closed(self.final_at, env.ts / 1e6)
                if late is not None:
                    text = f"{p.by}'s rating is not kept: {late}"
                    await self.send(Chat(text=text, to="human", intent="notice"), parent=env)
                    return
                desc = self.tasks.get(p.task_id, p.task_id)
                await self.learn(
                    f"{p.by} rated the result of '{desc[:160]}' {p.score}/5: {p.comment}",
                    task_kind="feedback",
                    parent=env,
                    kind="feedback",
                )
            case Final():
                self.final_at = env.ts
            case _:
                assert_never(p)

    async def on_control(self, env: Envelope, control: Control) -> None:
        """After an abort or a budget stop nothing more is learned in this run."""
        if control.action in ("abort", "budget_exhausted"):
            self.stopped = True
        elif control.action in ("pause", "resume"):
            self.paused = control.action == "pause"

    async def learn(
        self, text: str, *, task_kind: str, parent: Envelope, kind: str = "lesson"
    ) -> None:
        """Store a lesson (with its goal, run and source) and announce it, unless the run
        was stopped or an equal lesson is already kept."""
        if (self.stopped or self.paused) and kind == "lesson":
            return
        if self.memory is not None:
            stored = self.memory.add(
                text,
                kind=kind,
                task_kind=task_kind,
                run_id=self.run_id,
                source=parent.id,
                goal=self.goal,
            )
            if stored is None:
                self.log.debug("lesson already kept", text=text[:80])
                return
        await self.send(Lesson(text=text, task_kind=task_kind, source=[parent.id]), parent=parent)
