"""`HumanGate`: how a role asks the human, and how the run goes on when nobody answers.

A question is a `Question` on ``human.ask``; people answer with an `Answer` on
``human.answer`` that names the question id. The first answer settles a question. A
later answer to a settled question is ignored, and a notice (a `Chat` to ``human``,
which roles do not take as a remark) says whose answer counted. When nobody answers
within the timeout, the gate publishes the stated default as an `Answer` by
``default`` with a note that says why (and whether anyone was attached), so the log
shows how every question was settled.

Who is attached is known from the `Presence` messages people's ``society attach``
sends (``human/<name>``): up, a heartbeat every `HEARTBEAT_S`, down when they leave.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import structlog

from bus import Bus, Envelope, subjects
from bus.payloads import Answer, Chat, Presence, Question
from bus.subjects import Channel
from roles.presence import HumanPresence
from roles.settings import HumanSettings

__all__ = ["HumanGate", "HumanReply", "QuestionKind"]

QuestionKind = Literal["question", "plan_approval", "escalation"]

log = structlog.get_logger("roles.human")


@dataclass(frozen=True)
class HumanReply:
    """How a question was settled: by a person, or by the default."""

    question_id: str
    text: str
    approved: bool | None
    """For a plan approval: whether the plan was approved."""
    by: str
    """The person who answered, or ``default``."""
    message_id: str
    """Id of the `Answer` message (later decisions name it as their parent)."""

    @property
    def defaulted(self) -> bool:
        """Whether nobody answered and the default applied."""
        return self.by == "default"


def approval_of(kind: str, text: str, approved: bool | None) -> bool | None:
    """Whether an answer approves (plan approvals only): the flag, else the first word."""
    if kind != "plan_approval":
        return approved
    if approved is not None:
        return approved
    return text.strip().lower().split(" ", 1)[0] in ("approve", "approved", "yes", "ok")


def _summary(answer: Answer) -> str:
    if answer.approved is True:
        return "approved"
    if answer.approved is False:
        return f"rejected: {answer.text}" if answer.text else "rejected"
    return repr(answer.text)


class HumanGate:
    """Asks on behalf of one role instance; settles each question exactly once."""

    def __init__(self, bus: Bus, run_id: str, sender: str, settings: HumanSettings) -> None:
        self.bus = bus
        self.run_id = run_id
        self.sender = sender
        self.settings = settings
        self.presence = HumanPresence()
        self._ids = itertools.count(1)
        self._waiting: dict[str, tuple[asyncio.Future[Envelope], QuestionKind]] = {}
        self._since: dict[str, float] = {}
        self._settled: collections.OrderedDict[str, tuple[str, str]] = collections.OrderedDict()
        """Question id -> (who settled it, what they said), for the notices."""

    async def open(self) -> None:
        """Listen for answers and for people coming and going (call once connected)."""
        await self.bus.subscribe(
            subjects.run_wildcard(self.run_id, Channel.HUMAN_ANSWER), self._on_answer
        )
        await self.bus.subscribe(subjects.subject(self.run_id, Channel.PRESENCE), self._on_presence)

    def waiting_since(self) -> float | None:
        """Since when (monotonic) a question of this sender waits for a person (None: none)."""
        return min(self._since.values(), default=None)

    @property
    def attached(self) -> list[str]:
        """The people attached to the run right now."""
        return self.presence.attached()

    async def ask(
        self,
        text: str,
        *,
        default: str,
        options: Sequence[str] = (),
        kind: QuestionKind = "question",
        parent: Envelope | str | None = None,
        task_id: str | None = None,
        timeout_s: float | None = None,
    ) -> HumanReply:
        """Publish a question and wait for the first answer, or settle it on the default."""
        timeout = self.settings.timeout_s if timeout_s is None else timeout_s
        qid = f"{self.sender.replace('/', '-')}-{next(self._ids)}"
        future: asyncio.Future[Envelope] = asyncio.get_running_loop().create_future()
        self._waiting[qid] = (future, kind)
        question = Question(
            question_id=qid,
            kind=kind,
            text=text,
            options=list(options),
            default=default,
            timeout_s=timeout,
        )
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        if task_id is None and isinstance(parent, Envelope):
            task_id = parent.task_id
        try:
            qmid = await self.bus.send(
                self.run_id, self.sender, question, parent_id=parent_id, task_id=task_id
            )
            return await self._wait(question, future, qmid, task_id)
        finally:
            self._waiting.pop(qid, None)

    async def wait_again(self, question: Envelope, answer: Envelope | None = None) -> HumanReply:
        """Wait (a full timeout again) for an answer to a question asked before the run's
        processes stopped; ``answer`` is one the log already holds."""
        q = question.payload
        assert isinstance(q, Question)
        future: asyncio.Future[Envelope] = asyncio.get_running_loop().create_future()
        self._waiting[q.question_id] = (future, q.kind)
        if answer is not None:
            future.set_result(answer)
        try:
            return await self._wait(q, future, question.id, question.task_id)
        finally:
            self._waiting.pop(q.question_id, None)

    def skip_asked(self, count: int) -> None:
        """Questions 1..``count`` of this sender were asked before a resume (ids go on)."""
        self._ids = itertools.count(count + 1)

    async def _wait(
        self,
        question: Question,
        future: asyncio.Future[Envelope],
        qmid: str,
        task_id: str | None,
    ) -> HumanReply:
        qid, kind, timeout = question.question_id, question.kind, question.timeout_s
        self._since[qid] = time.monotonic()
        try:
            async with asyncio.timeout(timeout):
                env = await asyncio.shield(future)
        except TimeoutError:
            if not future.done():  # settled here, before any await: a late answer is a duplicate
                return await self._default(qid, kind, question.default, timeout, qmid, task_id)
            env = future.result()
        finally:
            self._since.pop(qid, None)
        answer = env.payload
        assert isinstance(answer, Answer)
        return HumanReply(
            qid, answer.text, approval_of(kind, answer.text, answer.approved), answer.by, env.id
        )

    async def _default(
        self,
        qid: str,
        kind: QuestionKind,
        default: str,
        timeout: float,
        parent_id: str,
        task_id: str | None,
    ) -> HumanReply:
        people = self.attached
        who = f"attached: {', '.join(people)}" if people else "no human attached"
        note = f"nobody answered within {timeout:g}s ({who}); proceeding on the default {default!r}"
        self._settle(qid, "the default", repr(default))
        approved = approval_of(kind, default, None)
        answer = Answer(question_id=qid, text=default, approved=approved, by="default", note=note)
        mid = await self.bus.send(
            self.run_id, self.sender, answer, parent_id=parent_id, task_id=task_id
        )
        log.info("question settled on its default", question=qid, note=note)
        return HumanReply(qid, default, approved, "default", mid)

    def _settle(self, qid: str, by: str, what: str) -> None:
        self._settled[qid] = (by, what)
        while len(self._settled) > 1000:
            self._settled.popitem(last=False)

    async def _on_answer(self, env: Envelope) -> None:
        answer = env.payload
        if not isinstance(answer, Answer) or env.sender == self.sender:
            return
        qid = answer.question_id
        settled = self._settled.get(qid)
        if settled is not None:
            first_by, first_what = settled
            notice = (
                f"{answer.by}'s answer to {qid} ({_summary(answer)}) is ignored: "
                f"{first_by} already settled it ({first_what})"
            )
            await self._notice(notice, env)
            return
        waiting = self._waiting.get(qid)
        if waiting is None or waiting[0].done():
            return  # another role's question
        if (
            waiting[1] != "question"
            and env.role == "human"
            and not self.settings.may(answer.by, "approve")
        ):
            notice = f"{answer.by} may not decide a {waiting[1].replace('_', ' ')} in this run"
            await self._notice(notice, env)
            return
        self._settle(qid, answer.by, _summary(answer))
        waiting[0].set_result(env)

    async def _notice(self, text: str, about: Envelope) -> None:
        """Tell the people why an answer of theirs (``about``) changed nothing."""
        by = self.sender.partition("/")[0]
        chat = Chat(text=text, to="human", by=by, intent="notice")
        await self.bus.send(
            self.run_id, self.sender, chat, parent_id=about.id, task_id=about.task_id
        )

    async def _on_presence(self, env: Envelope) -> None:
        p = env.payload
        if isinstance(p, Presence) and p.role == "human":
            self.presence.seen(env.instance, p.status)
