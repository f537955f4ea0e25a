"""`ModelCalls`: how a role calls its model — reserve the budget, record the request,
call, settle, publish the usage (with the answer, which is what replay serves back) — and
asks for answers that must validate as a pydantic model, in the server's structured mode,
sending a refused answer back with its error (only the last one: prompts never grow with
a history of bad answers).

When the role has tools, a model answer that asks for tool calls is answered by calling
them (each call a `ToolCall` on the bus, counted against ``tool_calls``) and the model is
asked again, for at most ``MAX_TOOL_ROUNDS`` rounds.

A call that fails or is cancelled is recorded too (usage without an answer), so a
replay fails or waits the same way; its reservation is released.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

import structlog
from autogen_core import FunctionCall
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    UserMessage,
)
from pydantic import BaseModel

from bus import Envelope
from bus.payloads import Payload, Retry, Usage
from roles.budget import Guard
from roles.errors import CallNotMade, ModelAnswerError, ModelCallError, RoleError, TaskFailed
from roles.model_access import ModelAccess, ModelReply, estimate_tokens, fingerprint
from roles.structured import AnswerInvalid, AnswerShape, shape_of
from roles.tools import PromptRecorder, ToolBox

__all__ = ["MAX_TOOL_ROUNDS", "ModelCalls", "Publish"]

M = TypeVar("M", bound=BaseModel)

Parent = Envelope | str | None

MAX_TOOL_ROUNDS = 6
"""Model answers that may ask for tools in one call; the next round offers none."""


class Publish(Protocol):
    """A role's `send`: publish a payload of the run, caused by ``parent``."""

    def __call__(
        self, payload: Payload, *, parent: Parent = None, task_id: str | None = None
    ) -> Awaitable[str]: ...


class ModelCalls:
    """One role instance's model calls."""

    def __init__(
        self,
        role: str,
        model: ModelAccess | None,
        guard: Guard | None,
        publish: Publish,
        *,
        checkpoint: Callable[[], None],
        max_parse_tries: int,
        tools: ToolBox | None = None,
        prompts: PromptRecorder | None = None,
    ) -> None:
        self.role = role
        self.model = model
        self.guard = guard
        self._publish = publish
        self._checkpoint = checkpoint
        self.max_parse_tries = max_parse_tries
        self.tools = tools
        self.prompts = prompts
        self.log = structlog.get_logger("roles").bind(role=role)

    @property
    def structured_mode(self) -> bool:
        """Whether the server itself holds answers to a schema (else: prompt and parse)."""
        return self.model is not None and self.model.structured != "prompt"

    async def call(
        self,
        messages: Sequence[LLMMessage],
        *,
        parent: Parent,
        task_id: str | None,
        schema: AnswerShape[Any] | None = None,
    ) -> ModelReply:
        """The model's answer to ``messages``, after any tool calls it asks for."""
        reply, _ = await self.exchange(messages, parent=parent, task_id=task_id, schema=schema)
        return reply

    async def exchange(
        self,
        messages: Sequence[LLMMessage],
        *,
        parent: Parent,
        task_id: str | None,
        schema: AnswerShape[Any] | None = None,
    ) -> tuple[ModelReply, list[LLMMessage]]:
        """The model's text answer, and the messages it answered (with any tool rounds)."""
        convo = list(messages)
        tools = self.tools
        for _ in range(MAX_TOOL_ROUNDS if tools is not None else 0):
            reply = await self.once(convo, parent=parent, task_id=task_id, offer_tools=True)
            if not reply.tool_calls:
                return reply, convo
            convo += await self._use_tools(reply, parent=parent, task_id=task_id)
        reply = await self.once(convo, parent=parent, task_id=task_id, schema=schema)
        return reply, convo

    async def _use_tools(
        self, reply: ModelReply, *, parent: Parent, task_id: str | None
    ) -> list[LLMMessage]:
        assert self.tools is not None
        calls = [
            FunctionCall(id=c.id, name=c.name, arguments=c.arguments) for c in reply.tool_calls
        ]
        results = []
        for request in reply.tool_calls:
            self._checkpoint()
            held = await self.guard.hold_tool() if self.guard is not None else None
            try:
                record = await self.tools.call(request, role=self.role, task_id=task_id)
            finally:
                if self.guard is not None and held is not None:
                    await self.guard.settle_tool(held)
            await self._publish(record, parent=parent, task_id=task_id)
            text = record.result if record.error is None else f"error: {record.error}"
            results.append(
                FunctionExecutionResult(
                    call_id=request.id,
                    name=request.name,
                    content=text or "",
                    is_error=record.error is not None,
                )
            )
        return [
            AssistantMessage(content=calls, source=self.role),
            FunctionExecutionResultMessage(content=results),
        ]

    async def once(
        self,
        messages: Sequence[LLMMessage],
        *,
        parent: Parent,
        task_id: str | None,
        schema: AnswerShape[Any] | None = None,
        offer_tools: bool = False,
    ) -> ModelReply:
        """One model call; publishes its usage (with the answer) before returning."""
        self._checkpoint()
        model = self.model
        if model is None:
            msg = f"role {self.role} has no model configured"
            raise RoleError(msg)
        task = (
            task_id if task_id is not None or not isinstance(parent, Envelope) else parent.task_id
        )
        tools = self.tools.schemas() if offer_tools and self.tools is not None else ()
        prompt = (
            self.prompts.record(model.request(messages, schema, tools))
            if self.prompts is not None
            else None
        )
        guard = self.guard
        held = (
            await guard.hold_call(estimate_tokens(messages), model.price_in, model.price_out)
            if guard is not None
            else None
        )
        retries: list[Retry] = []
        waits: list[float] = []
        started = time.monotonic()
        try:
            reply = await model.call(
                messages, task, schema=schema, tools=tools, retries=retries, waits=waits
            )
        except BaseException as exc:
            if guard is not None and held is not None:
                await guard.release(held)
            if isinstance(exc, RoleError | CallNotMade):
                raise
            why = str(exc) if isinstance(exc, ModelCallError) else f"{type(exc).__name__}: {exc}"
            cancelled = not isinstance(exc, Exception)
            failed = Usage(
                kind="model",
                model=model.model,
                latency_s=round(time.monotonic() - started - sum(waits), 6),
                rate_wait_s=round(sum(waits), 6),
                fingerprint=fingerprint(model.model, messages),
                error=None if cancelled else why,
                cancelled=cancelled,
                retries=retries,
                prompt=prompt,
            )
            try:
                await self._publish(failed, parent=parent, task_id=task_id)
            except Exception:  # shutting down: the bus may be gone
                self.log.debug("could not record an unanswered model call")
            if cancelled:
                raise
            msg = f"model call failed: {why}"
            raise TaskFailed(msg, cause="model") from exc
        if guard is not None and held is not None:
            await guard.settle_call(held, reply.tokens_in, reply.tokens_out, reply.cost)
        usage = Usage(
            kind="model",
            model=model.model,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost=reply.cost,
            latency_s=round(reply.latency_s, 6),
            rate_wait_s=round(reply.rate_wait_s, 6),
            fingerprint=reply.fingerprint,
            answer=reply.text,
            tool_calls=list(reply.tool_calls),
            finish_reason=reply.finish_reason,
            retries=list(reply.retries),
            prompt=prompt,
        )
        await self._publish(usage, parent=parent, task_id=task_id)
        return reply

    async def structured(
        self,
        messages: Sequence[LLMMessage],
        schema: type[M] | AnswerShape[M],
        *,
        what: str,
        parent: Parent,
        task_id: str | None,
    ) -> M:
        """Ask for an answer that validates as ``schema``; a bad one goes back with the
        error — the last bad answer only, so the prompt stays the size it started."""
        shape = schema if isinstance(schema, AnswerShape) else shape_of(schema)
        tries = self.max_parse_tries
        base = list(messages)
        retry: list[LLMMessage] = []
        last_error = ""
        for _ in range(tries):
            reply, seen = await self.exchange(
                base + retry, parent=parent, task_id=task_id, schema=shape
            )
            base += seen[len(base) + len(retry) :]  # tool rounds stay; the old retry goes
            try:
                return shape.parse(reply.text)
            except AnswerInvalid as exc:
                last_error = str(exc)
                if reply.finish_reason == "length":
                    last_error += " (the answer was cut off at the token limit: answer shorter)"
                self.log.info("model answer refused", what=what, error=last_error)
                retry = [
                    AssistantMessage(content=reply.text, source=self.role),
                    UserMessage(
                        content=(
                            f"Your {what} did not validate: {last_error}\n"
                            "Answer again with only the corrected JSON object."
                        ),
                        source="validator",
                    ),
                ]
        raise ModelAnswerError(what, tries, last_error)
