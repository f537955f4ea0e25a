"""`Role`: the shared base of every role (`roles.worker.WorkerRole` adds taking tasks).

A role instance owns one NATS connection (as if it ran on another machine), routes the
payloads it receives to its `handle` method, publishes typed messages, calls its model
through `call_model` / `ask_structured` (each call publishes a usage message carrying the
answer, which is what replay serves back), and takes remarks addressed to it into its
next prompt. A role may ask the human (`ask_human`) when the scenario allows it. It
announces itself (presence up), heartbeats, and says goodbye.

Work that must not be lost (tasks, plan requests, the manager's results and plans)
arrives through JetStream work queues (`bus.workqueue`), declared by `queues`; the rest
through plain subscriptions. It is the same path in one process and across machines.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import structlog
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage
from pydantic import BaseModel

from bus import Bus, ConnectOptions, Envelope, subjects
from bus.payloads import (
    Chat,
    Control,
    Payload,
    Presence,
    Usage,
)
from bus.subjects import Channel
from bus.workqueue import Delivery, DeliverySettings, QueueSpec, WorkQueue
from roles.budget_guard import BudgetGuard
from roles.errors import (
    CallNotMade,
    ModelAnswerError,
    ModelCallError,
    RoleError,
    TaskFailed,
)
from roles.human_gate import HumanGate, HumanReply, QuestionKind
from roles.model_access import ModelAccess, ModelReply, estimate_tokens, fingerprint
from roles.settings import HumanSettings, PresenceSettings, RoleSettings
from roles.structured import AnswerInvalid, parse_answer

__all__ = ["Role", "RoleContext"]

M = TypeVar("M", bound=BaseModel)

log = structlog.get_logger("roles")


@dataclass
class RoleContext:
    """Everything a role instance is given by whoever starts it."""

    run_id: str
    connect: ConnectOptions
    settings: RoleSettings
    instance: str = "0"
    model: ModelAccess | None = None
    run_dir: Path = field(default_factory=lambda: Path("runs"))
    extras: dict[str, Any] = field(default_factory=dict)
    """Role-specific collaborators (the sandbox, the memory, ...)."""
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    """How work queues hand out and take back work."""
    presence: PresenceSettings = field(default_factory=PresenceSettings)
    """How often to heartbeat (and, for the manager, how long to wait for a role)."""


class Role:
    """Base of all roles: lifecycle, subscriptions, typed publishing, model calls."""

    name: ClassVar[str] = "role"

    def __init__(self, ctx: RoleContext) -> None:
        self.ctx = ctx
        self.run_id = ctx.run_id
        self.sender = f"{self.name}/{ctx.instance}"
        self.bus = Bus(ctx.connect, name=f"{ctx.run_id}-{self.name}-{ctx.instance}", durable=True)
        self.remarks: list[str] = []
        self._queues: list[WorkQueue] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._consults: dict[str, asyncio.Future[str]] = {}
        self._my_chats: set[str] = set()
        self.log = log.bind(role=self.name, instance=ctx.instance, run=ctx.run_id)
        human = ctx.extras.get("human")
        self.human = HumanGate(
            self.bus,
            ctx.run_id,
            self.sender,
            human if isinstance(human, HumanSettings) else HumanSettings(),
        )

    # -- lifecycle ---------------------------------------------------------------------

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """(subject pattern, queue group) pairs; every role hears control and its remarks."""
        return [
            (subjects.subject(self.run_id, Channel.CONTROL), None),
            (subjects.subject(self.run_id, Channel.CHAT), None),
            (subjects.subject(self.run_id, Channel.CHAT, self.name), None),
        ]

    def queues(self) -> list[QueueSpec]:
        """Channels this role takes through a work queue (none by default)."""
        return []

    async def start(self) -> None:
        """Connect, subscribe, bind the work queues, announce presence and heartbeat."""
        await self.bus.connect()
        for pattern, queue in self.subscriptions():
            await self.bus.subscribe(pattern, self._dispatch, queue=queue)
        await self.human.open()
        for spec in self.queues():
            work = WorkQueue(self.bus, self.run_id, spec, self.ctx.delivery)
            await work.start(self.on_delivery, self.on_exhausted)
            self._queues.append(work)
        await self.bus.flush()
        await self.send(self._presence("up"))
        self.spawn(self._heartbeat(), name=f"{self.sender} heartbeat")

    def _presence(self, status: str) -> Presence:
        return Presence(
            status=status,  # type: ignore[arg-type]
            role=self.name,
            concurrency=self.ctx.settings.concurrency,
            host=socket.gethostname(),
            pid=os.getpid(),
        )

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.ctx.presence.heartbeat_s)
            try:
                await self.send(self._presence("heartbeat"))
            except Exception as exc:  # a bus that is reconnecting; the next beat will do
                self.log.debug("heartbeat not sent", error=str(exc))

    async def join(self, goal: Envelope) -> None:
        """Joined a run already under way (a worker process): take in its goal as if heard."""
        await self._dispatch(goal)

    async def on_delivery(self, delivery: Delivery) -> None:
        """Handle one message from a work queue; returning acknowledges it."""
        await self._dispatch(delivery.envelope)

    async def on_exhausted(self, delivery: Delivery) -> None:
        """A queued message was delivered too often without being finished (dead-lettered)."""

    async def stop(self) -> None:
        """Hand back queued work in flight, cancel the rest, say goodbye, disconnect."""
        for work in self._queues:
            await work.stop()
        self._queues.clear()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        try:
            await self.send(Presence(status="down", role=self.name))
        except Exception:  # the bus may already be gone on shutdown
            self.log.debug("could not announce leaving")
        await self.bus.close()

    def spawn(
        self, coro: Coroutine[Any, Any, Any], *, name: str | None = None
    ) -> asyncio.Task[Any]:
        """Run ``coro`` in the background, tracked so `stop` can cancel it."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("background task failed", error=repr(task.exception()))

    # -- messages ------------------------------------------------------------------------

    async def _dispatch(self, env: Envelope) -> None:
        payload = env.payload
        if isinstance(payload, Chat):
            if env.sender == self.sender or payload.to not in (None, self.name):
                return
            parent = env.parent_id or ""
            if parent in self._my_chats:
                # A reply to something this role said: it answers a pending question, or
                # it comes too late (the question was cancelled) and is dropped.
                waiting = self._consults.get(parent)
                if waiting is not None and not waiting.done():
                    waiting.set_result(payload.text)
            elif payload.by is None and payload.to == self.name and env.role != "runner":
                self.spawn(self.on_question(env, payload))
            else:
                self.remarks.append(f"{payload.by or env.role} says: {payload.text}")
            return
        if isinstance(payload, Control):
            await self.on_control(env, payload)
            return
        await self.handle(env)

    async def consult(
        self,
        role: str,
        question: str,
        *,
        parent: Envelope | str | None,
        task_id: str | None,
        timeout: float = 120.0,
    ) -> str:
        """Ask another role a question (a chat message) and wait for its reply."""
        self.checkpoint()
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        qid = await self.say(Chat(text=question, to=role), parent=parent, task_id=task_id)
        self._consults[qid] = future
        try:
            # Not wait_for: on 3.11 it swallows a cancel that races with the reply.
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            msg = f"{role} did not answer within {timeout:g}s"
            raise TaskFailed(msg) from None
        finally:
            self._consults.pop(qid, None)

    async def say(
        self, chat: Chat, *, parent: Envelope | str | None, task_id: str | None = None
    ) -> str:
        """Send a chat message, remembering it so replies to it are known as replies."""
        mid = await self.send(chat, parent=parent, task_id=task_id)
        if len(self._my_chats) > 10_000:
            self._my_chats.clear()
        self._my_chats.add(mid)
        return mid

    async def on_question(self, env: Envelope, chat: Chat) -> None:
        """Another role asked this one something; the base cannot answer."""
        await self.say(
            Chat(text=f"{self.name} cannot answer questions", to=env.role),
            parent=env,
            task_id=env.task_id,
        )

    async def ask_human(
        self,
        text: str,
        *,
        default: str,
        options: Sequence[str] = (),
        kind: QuestionKind = "question",
        parent: Envelope | str | None = None,
        task_id: str | None = None,
    ) -> HumanReply:
        """Ask the human and wait for the answer, or the default after the timeout.

        Plain questions need ``roles.human.questions`` in the scenario; the manager's
        plan approvals and escalations have settings of their own.
        """
        if kind == "question" and not self.human.settings.questions:
            msg = "this scenario does not let roles ask the human (roles.human.questions is off)"
            raise RoleError(msg)
        self.checkpoint()
        return await self.human.ask(
            text, default=default, options=options, kind=kind, parent=parent, task_id=task_id
        )

    def checkpoint(self) -> None:
        """Raise `asyncio.CancelledError` if the current work was told to stop."""

    async def handle(self, env: Envelope) -> None:
        """Handle one message of the role's subscriptions (subclasses override)."""
        self.log.debug("ignored", type=env.payload.type)

    async def on_control(self, env: Envelope, control: Control) -> None:
        """React to pause/resume/abort/cancel; the base does nothing."""

    async def send(
        self, payload: Payload, *, parent: Envelope | str | None = None, task_id: str | None = None
    ) -> str:
        """Publish a payload of this run; returns the message id."""
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        task_id = self._task_of(parent, task_id)
        return await self.bus.send(
            self.run_id, self.sender, payload, parent_id=parent_id, task_id=task_id
        )

    @staticmethod
    def _task_of(parent: Envelope | str | None, task_id: str | None) -> str | None:
        """The task a message sent with these arguments carries (as `send` decides it)."""
        if task_id is None and isinstance(parent, Envelope):
            return parent.task_id
        return task_id

    def take_remarks(self) -> list[str]:
        """Remarks received since the last prompt (they go into the next one)."""
        remarks, self.remarks = self.remarks, []
        return remarks

    # -- model calls ---------------------------------------------------------------------

    def system_prompt(self, base: str) -> SystemMessage:
        """The role's system message, with the scenario's extra instructions."""
        extra = self.ctx.settings.prompt.strip()
        return SystemMessage(content=f"{base}\n\n{extra}" if extra else base)

    async def call_model(
        self, messages: Sequence[LLMMessage], *, parent: Envelope | str | None, task_id: str | None
    ) -> ModelReply:
        """One model call; publishes its usage (with the answer) before returning."""
        self.checkpoint()
        model = self.ctx.model
        if model is None:
            msg = f"role {self.name} has no model configured"
            raise RoleError(msg)
        guard = self.ctx.extras.get("guard")
        held = (
            guard.reserve_call(estimate_tokens(messages), model.price_in, model.price_out)
            if isinstance(guard, BudgetGuard)
            else None
        )
        started = time.monotonic()
        try:
            reply = await model.call(messages, self._task_of(parent, task_id))
        except BaseException as exc:
            if held is not None and isinstance(guard, BudgetGuard):
                guard.release(held)
            if isinstance(exc, RoleError | CallNotMade):
                raise
            why = str(exc) if isinstance(exc, ModelCallError) else f"{type(exc).__name__}: {exc}"
            cancelled = not isinstance(exc, Exception)
            await self._record_unanswered(
                model, messages, started, None if cancelled else why, parent, task_id
            )
            if cancelled:
                raise
            msg = f"model call failed: {why}"
            raise TaskFailed(msg) from exc
        if held is not None and isinstance(guard, BudgetGuard):
            guard.settle_call(held, reply.tokens_in, reply.tokens_out, reply.cost)
        await self.send(
            Usage(
                kind="model",
                model=model.model,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                cost=reply.cost,
                latency_s=round(reply.latency_s, 6),
                fingerprint=reply.fingerprint,
                answer=reply.text,
            ),
            parent=parent,
            task_id=task_id,
        )
        return reply

    async def _record_unanswered(
        self,
        model: ModelAccess,
        messages: Sequence[LLMMessage],
        started: float,
        error: str | None,
        parent: Envelope | str | None,
        task_id: str | None,
    ) -> None:
        """Log a call that failed or was cancelled, so a replay fails or waits the same way."""
        usage = Usage(
            kind="model",
            model=model.model,
            latency_s=round(time.monotonic() - started, 6),
            fingerprint=fingerprint(model.model, messages),
            error=error,
            cancelled=error is None,
        )
        try:
            await self.send(usage, parent=parent, task_id=task_id)
        except Exception:  # shutting down: the bus may be gone
            self.log.debug("could not record an unanswered model call")

    async def ask_structured(
        self,
        messages: list[LLMMessage],
        schema: type[M],
        *,
        what: str,
        parent: Envelope | str | None,
        task_id: str | None,
    ) -> M:
        """Ask for an answer that validates as ``schema``; a bad one goes back with the error."""
        tries = self.ctx.settings.max_parse_tries
        convo = list(messages)
        last_error = ""
        for _ in range(tries):
            reply = await self.call_model(convo, parent=parent, task_id=task_id)
            try:
                return parse_answer(reply.text, schema)
            except AnswerInvalid as exc:
                last_error = str(exc)
                self.log.info("model answer refused", what=what, error=last_error)
                convo += [
                    AssistantMessage(content=reply.text, source=self.name),
                    UserMessage(
                        content=(
                            f"Your {what} did not validate: {last_error}\n"
                            "Answer again with only the corrected JSON object."
                        ),
                        source="validator",
                    ),
                ]
        raise ModelAnswerError(what, tries, last_error)
