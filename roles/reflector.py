"""The reflector: turns failed tasks, critiques and human ratings into lessons in
long-term memory, which the planner and the manager recall into later prompts.

Uses: long-term memory (without one it still announces its lessons on the bus).
"""

from __future__ import annotations

from typing import assert_never

from bus import Envelope, subjects
from bus.payloads import (
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
    TaskAssignment,
    TaskResult,
    ToolCall,
    Usage,
)
from bus.subjects import Channel
from roles.base import Role
from roles.context import RoleContext
from roles.settings import ReflectorSettings

__all__ = ["Reflector"]


class Reflector(Role[ReflectorSettings]):
    """Writes lessons; the memory outlives the run (a folder shared across runs)."""

    name = "reflector"

    def __init__(self, ctx: RoleContext[ReflectorSettings]) -> None:
        super().__init__(ctx)
        self.memory = ctx.deps.memory
        self.goal = ""
        self.tasks: dict[str, str] = {}

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
        match p:
            case Goal():
                self.goal = p.text
            case TaskAssignment():
                self.tasks[p.task.id] = p.task.description
                if not self.goal:
                    self.goal = p.goal
            case TaskResult():
                if p.status == "failed":
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
                desc = self.tasks.get(p.task_id, p.task_id)
                await self.learn(
                    f"{p.by} rated the result of '{desc[:160]}' {p.score}/5: {p.comment}",
                    task_kind="feedback",
                    parent=env,
                    kind="feedback",
                )
            case Final():
                if p.status != "succeeded":
                    await self.learn(
                        f"A run on '{self.goal[:160]}' ended {p.status}: {p.reason[:300]}",
                        task_kind="run",
                        parent=env,
                    )
            case (
                PlanRequest()
                | Plan()
                | PlanDecision()
                | ExecRequest()
                | ExecResult()
                | Question()
                | Answer()
                | Chat()
                | Lesson()
                | Usage()
                | ToolCall()
                | Control()
                | Presence()
                | DeadLetter()
            ):
                pass
            case _:
                assert_never(p)

    async def learn(
        self, text: str, *, task_kind: str, parent: Envelope, kind: str = "lesson"
    ) -> None:
        """Store a lesson and announce it."""
        if self.memory is not None:
            self.memory.add(
                text, kind=kind, task_kind=task_kind, run_id=self.run_id, source=parent.id
            )
        await self.send(Lesson(text=text, task_kind=task_kind, source=[parent.id]), parent=parent)
