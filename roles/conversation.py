"""`Conversation`: what a role says and hears in chat, told apart by `Chat.intent`.

- a *remark* addressed to the role (or to everyone) goes into its next prompt;
- a *question* addressed to it is answered by the role's ``on_question``;
- a *reply* settles the role's own pending question (``parent_id`` names it); a reply
  to a question that is no longer waited for (cancelled, timed out, another
  instance's) is dropped;
- a *notice* is for people only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from bus import Envelope
from bus.payloads import Chat
from roles.calls import Parent, Publish
from roles.errors import TaskFailed

__all__ = ["Conversation"]

OnQuestion = Callable[[Envelope, Chat], Coroutine[Any, Any, None]]


class Conversation:
    """One role instance's side of the chat."""

    def __init__(
        self,
        role: str,
        sender: str,
        publish: Publish,
        *,
        checkpoint: Callable[[], None],
        on_question: OnQuestion,
        spawn: Callable[[Coroutine[Any, Any, None]], object],
    ) -> None:
        self.role = role
        self.sender = sender
        self._publish = publish
        self._checkpoint = checkpoint
        self._on_question = on_question
        self._spawn = spawn
        self.remarks: list[str] = []
        self._waiting: dict[str, asyncio.Future[str]] = {}

    def hear(self, env: Envelope, chat: Chat) -> None:
        """Take in a chat message of the run."""
        if env.sender == self.sender or chat.to not in (None, self.role):
            return
        match chat.intent:
            case "reply":
                waiting = self._waiting.get(env.parent_id or "")
                if waiting is not None and not waiting.done():
                    waiting.set_result(chat.text)
            case "question":
                if chat.to == self.role:
                    self._spawn(self._on_question(env, chat))
            case "remark":
                self.remarks.append(f"{chat.by or env.role} says: {chat.text}")
            case "notice":
                pass

    def take_remarks(self) -> list[str]:
        """Remarks received since the last prompt (they go into the next one)."""
        remarks, self.remarks = self.remarks, []
        return remarks

    async def say(self, chat: Chat, *, parent: Parent, task_id: str | None = None) -> str:
        """Send a chat message; returns its id."""
        return await self._publish(chat, parent=parent, task_id=task_id)

    async def reply(self, question: Envelope, text: str) -> str:
        """Answer a question another role asked."""
        chat = Chat(text=text, to=question.role, intent="reply")
        return await self.say(chat, parent=question, task_id=question.task_id)

    async def consult(
        self,
        role: str,
        question: str,
        *,
        parent: Parent,
        task_id: str | None,
        timeout: float = 120.0,
    ) -> str:
        """Ask another role a question and wait for its reply."""
        self._checkpoint()
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        chat = Chat(text=question, to=role, intent="question")
        qid = await self.say(chat, parent=parent, task_id=task_id)
        self._waiting[qid] = future
        try:
            # Not wait_for: on 3.11 it swallows a cancel that races with the reply.
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            msg = f"{role} did not answer within {timeout:g}s"
            raise TaskFailed(msg) from None
        finally:
            self._waiting.pop(qid, None)
