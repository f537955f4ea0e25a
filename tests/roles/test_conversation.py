"""A role's conversation: remarks, questions, replies and notices told apart by the
message's intent, not by who sent it (pure logic; publishing is captured)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from bus import Envelope
from bus.payloads import Chat, Payload
from roles.calls import Parent
from roles.conversation import Conversation
from roles.errors import TaskFailed

pytestmark = pytest.mark.timeout(10)


class Talk:
    """A researcher's conversation whose messages are kept instead of published."""

    def __init__(self) -> None:
        self.sent: list[Envelope] = []
        self.published = asyncio.Event()
        self.questions: list[str] = []
        self.conv = Conversation(
            "researcher",
            "researcher/0",
            self.publish,
            checkpoint=lambda: None,
            on_question=self.on_question,
            spawn=self.spawn,
        )

    async def publish(
        self, payload: Payload, *, parent: Parent = None, task_id: str | None = None
    ) -> str:
        parent_id = parent.id if isinstance(parent, Envelope) else parent
        env = Envelope.new("r", "researcher/0", payload, parent_id=parent_id, task_id=task_id)
        self.sent.append(env)
        self.published.set()
        return env.id

    def hear(self, env: Envelope) -> None:
        assert isinstance(env.payload, Chat)
        self.conv.hear(env, env.payload)

    async def on_question(self, env: Envelope, chat: Chat) -> None:
        self.questions.append(chat.text)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> object:
        return asyncio.get_running_loop().create_task(coro)


def heard(sender: str, chat: Chat, parent_id: str | None = None) -> Envelope:
    return Envelope.new("r", sender, chat, parent_id=parent_id)


async def test_a_reply_settles_the_question_it_names() -> None:
    t = Talk()
    asking = asyncio.create_task(t.conv.consult("planner", "which?", parent=None, task_id="a"))
    await t.published.wait()
    question = t.sent[0]
    assert isinstance(question.payload, Chat) and question.payload.intent == "question"
    t.hear(heard("planner/0", Chat(text="stale", to="researcher", intent="reply"), "other"))
    t.hear(heard("planner/0", Chat(text="this one", to="researcher", intent="reply"), question.id))
    assert await asking == "this one"
    assert t.conv.take_remarks() == []  # replies are not remarks


async def test_questions_remarks_and_notices() -> None:
    t = Talk()
    t.hear(heard("planner/0", Chat(text="why?", to="researcher", intent="question")))
    t.hear(heard("human/ada", Chat(text="mention Euclid", to="researcher", by="ada")))
    t.hear(heard("manager/0", Chat(text="ignored", to="human", intent="notice")))
    t.hear(heard("coder/0", Chat(text="for the coder", to="coder")))
    await asyncio.sleep(0)
    assert t.questions == ["why?"]
    assert t.conv.take_remarks() == ["ada says: mention Euclid"]


async def test_an_unanswered_question_fails_the_task() -> None:
    t = Talk()
    with pytest.raises(TaskFailed, match=r"planner did not answer within 0\.05s"):
        await t.conv.consult("planner", "which?", parent=None, task_id="a", timeout=0.05)
