"""`Conversation`: what an attached person needs to know, folded from the run's log.

It numbers the questions in the order they were asked (``#1``, ``#2``, ...), knows
which are still waiting for an answer and who settled the others, which tasks have a
result to rate, which roles and people are in the run, and whether it has ended.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field

from bus import Envelope
from bus.payloads import Answer, Final, Goal, Presence, Question, TaskAssignment, TaskResult
from roles.presence import HumanPresence
from roles.registry import REGISTRY
from roles.settings import HumanSettings
from society.human.commands import CommandError

__all__ = ["AskedQuestion", "Conversation"]

ROLES = tuple(name for name, reg in REGISTRY.items() if reg.settings is not None)
"""The society's built-in roles (`roles.registry`); a run's specialists join as they say
they are there."""
_GRACE_S = 5.0
"""A question this long past its timeout is no longer shown as waiting (its asker is gone)."""


@dataclass
class AskedQuestion:
    """A question of the run and how it was settled."""

    number: int
    question: Question
    asker: str
    ts: int
    """When it was asked (Unix microseconds)."""
    message_id: str
    task_id: str | None = None
    answer: Answer | None = None

    @property
    def qid(self) -> str:
        """The question id."""
        return self.question.question_id

    @property
    def label(self) -> str:
        """``#n`` as the person types it."""
        return f"#{self.number}"

    def seconds_left(self, now: float | None = None) -> float:
        """Seconds until the default applies (negative once past)."""
        t = time.time() if now is None else now
        return self.ts / 1e6 + self.question.timeout_s - t

    def how_to_answer(self) -> str:
        """The commands that answer it."""
        q = self.question
        if q.kind == "plan_approval":
            return f"approve {self.label}  |  reject {self.label} <reason>"
        if q.options:
            return f"answer {self.label} <{'|'.join(q.options)}> ..."
        return f"answer {self.label} <text>"


@dataclass
class Conversation:
    """Folded state of a run, as a person taking part needs it."""

    questions: dict[str, AskedQuestion] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)
    """Task id -> role."""
    results: dict[str, str] = field(default_factory=dict)
    """Task id -> status of its latest result."""
    roles: set[str] = field(default_factory=lambda: set(ROLES))
    people: HumanPresence = field(default_factory=HumanPresence)
    """Attached people, by when the log last heard from them."""
    final: Final | None = None
    final_ts: int | None = None
    """When the final message was made (µs)."""
    human: HumanSettings = field(default_factory=HumanSettings)
    """The scenario's settings for people (who may approve), from the goal."""

    def apply(self, env: Envelope) -> AskedQuestion | None:
        """Fold one message in; returns the question it asks or settles, if any."""
        p = env.payload
        match p:
            case Question():
                asked = AskedQuestion(
                    len(self.questions) + 1, p, env.sender, env.ts, env.id, env.task_id
                )
                self.questions.setdefault(p.question_id, asked)
                return self.questions[p.question_id]
            case Goal():
                self.human = _human_settings(p)
            case Answer():
                asked_q = self.questions.get(p.question_id)
                if asked_q is None or asked_q.answer is not None:
                    return asked_q
                decides = asked_q.question.kind == "question" or env.role != "human"
                if decides or self.human.may(p.by, "approve"):
                    asked_q.answer = p
                return asked_q
            case TaskAssignment():
                self.tasks[p.task.id] = p.task.role
            case TaskResult() if p.status != "cancelled":
                self.results[p.task_id] = p.status
            case Presence() if p.role == "human":
                self.people.seen(env.instance, p.status, now=env.ts / 1e6)
            case Presence():
                self.roles.add(p.role)
            case Final():
                self.final, self.final_ts = p, env.ts
            case _:
                pass
        return None

    @property
    def known_ids(self) -> Collection[str]:
        """Every question id, for the command parser."""
        return self.questions.keys()

    def pending(self, now: float | None = None) -> list[AskedQuestion]:
        """Questions still waiting for an answer, oldest first."""
        if self.final is not None:
            return []
        return [
            q
            for q in self.questions.values()
            if q.answer is None and q.seconds_left(now) > -_GRACE_S
        ]

    def find(self, target: str | None, kinds: Collection[str] = ()) -> AskedQuestion:
        """The question a command names, or the only pending one of ``kinds``."""
        if target is not None:
            if target.startswith("#"):
                found = [q for q in self.questions.values() if q.label == target]
            else:
                found = [q for q in self.questions.values() if q.qid == target]
            if not found:
                msg = f"no question {target}; type pending to see what waits for an answer"
                raise CommandError(msg)
            return found[0]
        waiting = [q for q in self.pending() if not kinds or q.question.kind in kinds]
        what = "plan waiting for approval" if set(kinds) == {"plan_approval"} else "question"
        if not waiting:
            msg = f"no {what} is pending"
            raise CommandError(msg)
        if len(waiting) > 1:
            labels = ", ".join(q.label for q in waiting)
            msg = f"several are pending ({labels}): name one, e.g. {waiting[0].label}"
            raise CommandError(msg)
        return waiting[0]

    def attached(self, now: float | None = None) -> list[str]:
        """People heard from recently (by the log's clock: Unix seconds)."""
        return self.people.attached(time.time() if now is None else now)


def _human_settings(goal: Goal) -> HumanSettings:
    """The people's settings of the run's scenario (defaults when it does not say)."""
    roles = goal.scenario.get("roles") if isinstance(goal.scenario, dict) else None
    human = roles.get("human") if isinstance(roles, dict) else None
    try:
        return HumanSettings.model_validate(human or {})
    except ValueError:
        return HumanSettings()
