"""The coder's "goal_check" strategy: one program that answers the whole goal, itself the
independent check of a plan's answer (`roles.verifier.goal_check`), and a second written
independently, so that its answer can stand for the plan's. A program that failed every fix
is drawn once more, another way; when none can be had, the check is left without an answer
rather than the run failed. Apart from `roles.coder.role` so that the role holds what every
strategy shares."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from autogen_core.models import LLMMessage
from pydantic import JsonValue

from bus import Envelope
from bus.payloads import TaskAssignment, TaskResult
from bus.verdicts import CheckVerdict
from roles.coder.votes import Solved, Vote, after_failure, tied_level
from roles.errors import TaskFailed

__all__ = ["Checking", "by_goal_check", "unanswered"]


class Checking(Protocol):
    """What the strategy uses of the coder."""

    @property
    def run_dir(self) -> Path: ...

    def prompt(self, assignment: TaskAssignment, note: str = "") -> list[LLMMessage]: ...

    async def solved(
        self,
        env: Envelope,
        assignment: TaskAssignment,
        convo: list[LLMMessage],
        attempts: int | None = None,
    ) -> Solved: ...

    async def vote(self, env: Envelope, assignment: TaskAssignment, first: Solved) -> Vote: ...

    def done(
        self,
        assignment: TaskAssignment,
        solved: Solved,
        note: str = "",
        verdicts: list[CheckVerdict] | None = None,
    ) -> TaskResult: ...


async def by_goal_check(coder: Checking, env: Envelope, assignment: TaskAssignment) -> TaskResult:
    """The goal check's answer: a program for the whole goal (drawn once more when it failed
    every fix), checked by a second written independently; programs left tied are kept as
    ``level`` candidates (`roles.verifier.goal_check.standing` weighs them)."""
    try:
        solved = await coder.solved(env, assignment, coder.prompt(assignment))
    except TaskFailed as failed:
        again = coder.prompt(assignment, after_failure(str(failed)))
        try:  # a program that failed every fix checks nothing: one more, another way
            solved = await coder.solved(env, assignment, again)
        except TaskFailed as exc:
            return unanswered(coder, assignment, exc)
    vote = await coder.vote(env, assignment, solved)
    held = CheckVerdict(
        kind="goal_check",
        what="it is itself the independent check of the plan's answer",
        candidate=vote.kept.exec_id,
        passed=True,
        independent=True,
        evidence=[vote.kept.exec_id],
    )
    result = coder.done(assignment, vote.kept, note=vote.note, verdicts=[held, vote.verdict()])
    return result.model_copy(update={"level": tied_level(vote, coder.run_dir, result.task_id)})


def unanswered(coder: Checking, assignment: TaskAssignment, failed: TaskFailed) -> TaskResult:
    """The goal check with no independent answer: done, its output empty, and why."""
    outputs: dict[str, JsonValue] = dict.fromkeys(assignment.task.outputs, "")
    note = f"no independent answer: {str(failed)[:300]}"
    return coder.done(assignment, Solved(outputs, {}, "", 0), note=note)
