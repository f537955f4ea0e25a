"""`Role`: the shared base of every role — lifecycle and routing (`roles.worker.WorkerRole`
adds taking tasks).

A role instance owns one NATS connection (as if it ran on another machine), announces
itself (presence up), heartbeats, says goodbye, and routes what it receives: chat to its
`Conversation` (remarks, questions, replies), control to `on_control`, everything else
to `handle`. It publishes with `send`, calls its model through `calls` (`ModelCalls`),
and asks a person through `ask_human` when the scenario allows it.

Work that must not be lost (tasks, plan requests, the manager's results and plans)
arrives through JetStream work queues (`bus.workqueue`), declared by `queues`; the rest
through plain subscriptions. It is the same path in one process and across machines.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ClassVar, Generic

import structlog
from autogen_core.models import SystemMessage

from bus import Bus, Envelope, subjects
from bus.payloads import Chat, Control, Payload, Presence, Recall, RecalledLesson
from bus.subjects import Channel
from bus.workqueue import Delivery, QueueSpec, WorkQueue
from roles.calls import ModelCalls, Parent
from roles.context import RoleContext, RoleDeps, S
from roles.conversation import Conversation
from roles.errors import RoleError
from roles.human_gate import HumanGate, HumanReply, QuestionKind

__all__ = ["Role", "RoleContext", "RoleDeps"]

log = structlog.get_logger("roles")


class Role(Generic[S]):
    """Base of all roles: lifecycle, routing, typed publishing."""

    name: ClassVar[str] = "role"
    hears_chat: ClassVar[bool] = True
    """Whether chat and control are conversation and steering (the default), or, False,
    history like any other message, handed to `handle` (the critic)."""
    calls_roll: ClassVar[bool] = False
    """Ask every role instance of the run to say it is there when this one starts."""

    def __init__(self, ctx: RoleContext[S]) -> None:
        self.ctx = ctx
        self.settings: S = ctx.settings
        self.deps: RoleDeps = ctx.deps
        self.run_id = ctx.run_id
        self.sender = f"{self.name}/{ctx.instance}"
        self.bus = Bus(
            ctx.connect,
            name=f"{ctx.run_id}-{self.name}-{ctx.instance}",
            durable=True,
            reports=False,
        )
        self._queues: list[WorkQueue] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self.log = log.bind(role=self.name, instance=ctx.instance, run=ctx.run_id)
        self.human = HumanGate(self.bus, ctx.run_id, self.sender, ctx.deps.human)
        self.calls = ModelCalls(
            self.name,
            ctx.deps.model,
            ctx.deps.guard,
            self.send,
            tools=ctx.deps.tools,
            prompts=ctx.deps.prompts,
            checkpoint=self.checkpoint,
            max_parse_tries=ctx.settings.max_parse_tries,
        )
        self.talk = Conversation(
            self.name,
            self.sender,
            self.send,
            checkpoint=self.checkpoint,
            on_question=self.on_question,
            spawn=self.spawn,
        )

    # -- lifecycle ---------------------------------------------------------------------

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """(subject pattern, queue group) pairs; every role hears control and its remarks."""
        return [
            (subjects.run_wildcard(self.run_id, Channel.CONTROL), None),
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
            await self.bus.subscribe(pattern, self.receive, queue=queue)
        await self.human.open()
        for spec in self.queues():
            work = WorkQueue(self.bus, self.run_id, spec, self.ctx.delivery)
            await work.start(self.on_delivery, self.on_exhausted)
            self._queues.append(work)
        await self.bus.flush()
        roll = subjects.roll_call(self.run_id)
        await self.bus.subscribe_raw(roll, self._answer_roll)
        await self.send(self._presence("up"))
        if self.calls_roll:
            await self.bus.publish_raw(roll, b"")
        self.spawn(self._heartbeat(), name=f"{self.sender} heartbeat")

    async def _answer_roll(self, data: bytes) -> None:
        """A manager that just started asks who is there: say so now, not at the next beat."""
        if not self.calls_roll:
            await self.send(self._presence("heartbeat"))

    def _presence(self, status: str) -> Presence:
        return Presence(
            status=status,  # type: ignore[arg-type]
            role=self.name,
            concurrency=self.settings.concurrency,
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
        await self.receive(goal)

    async def on_delivery(self, delivery: Delivery) -> None:
        """Handle one message from a work queue; returning acknowledges it."""
        await self.receive(delivery.envelope)

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

    async def receive(self, env: Envelope) -> None:
        """Route one message: chat to the conversation, control to `on_control`, the rest
        (and everything, for a role that does not hear chat) to `handle`."""
        payload = env.payload
        if self.hears_chat and isinstance(payload, Chat):
            self.talk.hear(env, payload)
        elif self.hears_chat and isinstance(payload, Control):
            await self.on_control(env, payload)
        else:
            await self.handle(env)

    async def handle(self, env: Envelope) -> None:
        """Handle one message of the role's subscriptions (subclasses override)."""
        self.log.debug("ignored", type=env.payload.type)

    async def on_control(self, env: Envelope, control: Control) -> None:
        """React to pause/resume/abort/cancel; the base does nothing."""

    async def on_question(self, env: Envelope, chat: Chat) -> None:
        """Another role asked this one something; the base cannot answer."""
        await self.talk.reply(env, f"{self.name} cannot answer questions")

    async def ask_human(
        self,
        text: str,
        *,
        default: str,
        options: Sequence[str] = (),
        kind: QuestionKind = "question",
        parent: Parent = None,
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

    async def recall(
        self,
        query: str,
        *,
        parent: Parent = None,
        kind: str | None = None,
        k: int | None = None,
        near: Callable[[str], bool] | None = None,
    ) -> list[str]:
        """Lessons of earlier runs for ``query`` from long-term memory (or entries of
        ``kind``, ``k`` of them, whose goal ``near`` accepts), recorded (when there are any)
        as a `Recall` in the log: which lessons reach the prompt this is for."""
        memory = self.deps.memory
        k = self.deps.recall if k is None else k
        if memory is None or k <= 0:
            return []
        hits = memory.search(query, k, kind=kind, before_run=self.run_id, near=near)
        if hits:  # nothing recalled, nothing reached a prompt: no message
            lessons = [RecalledLesson(id=hit.id, text=hit.text) for hit in hits]
            recall = Recall(role=self.name, query=query[:500], lessons=lessons)
            await self.send(recall, parent=parent)
        return [hit.text for hit in hits]

    def checkpoint(self) -> None:
        """Raise `asyncio.CancelledError` if the current work was told to stop."""

    async def send(
        self, payload: Payload, *, parent: Parent = None, task_id: str | None = None
    ) -> str:
        """Publish a payload of this run; returns the message id. Without ``task_id`` the
        message carries its parent's task."""
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        if task_id is None and isinstance(parent, Envelope):
            task_id = parent.task_id
        return await self.bus.send(
            self.run_id, self.sender, payload, parent_id=parent_id, task_id=task_id
        )

    def instructions(self, built_in: str) -> str:
        """The role's main instructions: a prompt set's, else ``built_in``."""
        return self.settings.instructions or built_in

    def system_prompt(self, base: str) -> SystemMessage:
        """The role's system message, with the scenario's extra instructions."""
        extra = self.settings.prompt.strip()
        return SystemMessage(content=f"{base}\n\n{extra}" if extra else base)
