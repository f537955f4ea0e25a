"""A flaky model server, one fault at a time: the real openai SDK (through AutoGen's client,
as a role gets it from the factory) against a local chat-completions server that refuses,
fails, garbles, rate-limits, never finishes or hangs. Each call either succeeds with its
retries on the record, or fails with a message naming the server and the model."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import pytest
from autogen_core.models import SystemMessage, UserMessage
from pydantic import BaseModel

from bus.payloads import Payload, Usage
from roles.calls import ModelCalls
from roles.errors import TaskFailed
from society.models.factory import ModelFactory, override_spec
from society.models.spec import PROMPT_S, ROLE_LIMITS, SLOWEST_TOKENS_PER_S

from ..chat_server import chat_server

pytestmark = pytest.mark.timeout(120)

MESSAGES = [SystemMessage(content="You are the planner."), UserMessage(content="hi", source="u")]


class Answer(BaseModel):
    value: int


def respond(body: dict[str, Any]) -> str:
    return json.dumps({"value": 42})


def calls_for(
    url: str, *, timeout_s: float = 5.0, max_tokens: int = 64
) -> tuple[ModelCalls, list[Payload]]:
    spec = override_spec("flaky", url, None, max_tokens=max_tokens, timeout_s=timeout_s)
    access = ModelFactory({"default": spec}, {}).build("default", "planner")
    sent: list[Payload] = []

    async def publish(
        payload: Payload, *, parent: object = None, task_id: str | None = None
    ) -> str:
        sent.append(payload)
        return "id"

    return ModelCalls(
        "planner", access, None, publish, checkpoint=lambda: None, max_parse_tries=2
    ), sent


def usage(sent: list[Payload]) -> Usage:
    found = [p for p in sent if isinstance(p, Usage)]
    assert len(found) == 1
    return found[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_refused_connection_fails_naming_the_server_and_model() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    calls, sent = calls_for(url)
    with pytest.raises(TaskFailed) as failed:
        await calls.once(MESSAGES, parent=None, task_id="t")
    text = str(failed.value)
    assert url in text and "flaky" in text and "is the server running" in text
    record = usage(sent)
    assert record.answer is None and record.error is not None and url in record.error
    assert len(record.retries) == 3  # four tries: three retried
    assert all("APIConnectionError" in r.error for r in record.retries)


@pytest.mark.parametrize("fault", ["500", "garbage"])
async def test_a_server_error_or_garbage_body_then_success_is_retried(fault: str) -> None:
    with chat_server(respond, faults=[fault]) as server:
        calls, sent = calls_for(server.url)
        answer = await calls.structured(MESSAGES, Answer, what="answer", parent=None, task_id="t")
    assert answer.value == 42
    assert server.played == [fault]
    record = usage(sent)
    assert record.answer is not None
    assert len(record.retries) == 1
    if fault == "500":
        assert record.retries[0].status == 500
    else:
        assert "not a chat completion" in record.retries[0].error


async def test_rate_limit_answers_wait_for_retry_after_and_are_on_the_record() -> None:
    with chat_server(respond, rate_limit_first=2, retry_after=0.3) as server:
        calls, sent = calls_for(server.url)
        started = time.monotonic()
        await calls.once(MESSAGES, parent=None, task_id="t")
        waited = time.monotonic() - started
    record = usage(sent)
    assert [r.status for r in record.retries] == [429, 429]
    assert [r.wait_s for r in record.retries] == [0.3, 0.3]
    assert waited >= 0.6  # Retry-After was honoured (a lower bound, not a timing race)


async def test_an_answer_that_never_ends_is_bounded_by_max_tokens_and_the_timeout() -> None:
    with chat_server(respond, faults=["trickle"] * 4) as server:
        calls, sent = calls_for(server.url, timeout_s=1.0, max_tokens=32)
        started = time.monotonic()
        with pytest.raises(TaskFailed) as failed:
            await calls.once(MESSAGES, parent=None, task_id="t")
        elapsed = time.monotonic() - started
    assert server.played == ["trickle"] * 4
    assert all(r["max_tokens"] == 32 for r in server.requests) or not server.requests
    assert "within the timeout" in str(failed.value) and "--timeout" in str(failed.value)
    assert len(usage(sent).retries) == 3
    assert elapsed < 60  # four 1 s attempts and their backoff, not forever


@pytest.mark.parametrize("role", [*ROLE_LIMITS, "specialist"])
def test_each_default_timeout_lets_an_answer_reach_max_tokens_on_the_slowest_server(
    role: str,
) -> None:
    # an answer cut at max_tokens goes back to the model as a failure; one that times out
    # is retried and, at temperature 0, runs on the same way until the wall is spent
    spec = override_spec("m", "http://127.0.0.1:9/v1", None)
    access = ModelFactory({"default": spec}, {}).build("default", role)
    assert access.max_tokens is not None and access.timeout_s is not None
    assert access.timeout_s >= PROMPT_S + access.max_tokens / SLOWEST_TOKENS_PER_S


async def test_a_hanging_call_times_out_and_a_later_try_succeeds() -> None:
    with chat_server(respond, faults=["hang"]) as server:
        calls, sent = calls_for(server.url, timeout_s=1.0)
        reply = await calls.once(MESSAGES, parent=None, task_id="t")
        requests = list(server.requests)
    assert json.loads(reply.text) == {"value": 42}
    assert requests[-1]["max_tokens"] == 64
    record = usage(sent)
    assert len(record.retries) == 1 and "timeout" in record.retries[0].error


async def test_a_reask_sends_only_the_last_bad_answer() -> None:
    answers = iter(["not json", "still not json", json.dumps({"value": 7})])

    def bad_then_good(body: dict[str, Any]) -> str:
        return next(answers)

    with chat_server(bad_then_good) as server:
        calls, _ = calls_for(server.url)
        calls.max_parse_tries = 3
        answer = await calls.structured(MESSAGES, Answer, what="answer", parent=None, task_id="t")
        sizes = [len(r["messages"]) for r in server.requests]
        last = server.requests[-1]["messages"]
    assert answer.value == 7
    assert sizes == [2, 4, 4]  # the prompt, then the prompt + last answer + its error
    assert last[2]["content"] == "still not json"


async def test_the_request_asks_the_server_for_the_schema_in_its_dialect() -> None:
    with chat_server(respond) as server:
        calls, _ = calls_for(server.url)  # a base_url: llama.cpp's json_object + schema
        await calls.structured(MESSAGES, Answer, what="answer", parent=None, task_id="t")
        fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_object"
    assert fmt["schema"]["properties"]["value"]["type"] == "integer"


def _queued_calls(url: str, slots: int) -> list[ModelCalls]:
    spec = override_spec("one-slot", url, None, max_tokens=64, timeout_s=2.5, slots=slots)
    factory = ModelFactory({"default": spec}, {})

    async def publish(
        payload: Payload, *, parent: object = None, task_id: str | None = None
    ) -> str:
        return "id"

    return [
        ModelCalls(
            role,
            factory.build("default", role),
            None,
            publish,
            checkpoint=lambda: None,
            max_parse_tries=2,
        )
        for role in ("planner", "coder", "researcher", "critic")
    ]


async def test_calls_to_a_one_slot_server_take_turns_before_their_timeouts_start() -> None:
    # Four roles call at once; the server answers one at a time, 1 s each. The last call
    # queues 3 s behind the others, past its 2.5 s timeout, unless it waits its turn here.
    with chat_server(respond, serve_s=1.0) as server:
        answers = await asyncio.gather(
            *(c.once(MESSAGES, parent=None, task_id="t") for c in _queued_calls(server.url, 1))
        )
        assert [a.text for a in answers] == [json.dumps({"value": 42})] * 4
        assert server.served == 4  # no call was abandoned and sent again
    with chat_server(respond, serve_s=1.0) as server:  # the same calls, all sent at once
        await asyncio.gather(
            *(c.once(MESSAGES, parent=None, task_id="t") for c in _queued_calls(server.url, 8)),
            return_exceptions=True,
        )
        assert len(server.requests) > 4  # a call timed out in the queue and was retried


def test_a_server_on_this_machine_has_one_slot_unless_told() -> None:
    assert override_spec("m", "http://127.0.0.1:8080/v1", None).slots == 1
    assert override_spec("m", "http://localhost:8080/v1", None, slots=4).slots == 4
    assert override_spec("m", "https://api.example.com/v1", None).slots is None
    assert override_spec("m", None, None).slots is None
