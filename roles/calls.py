"""`ModelCalls`: how a role calls its model — reserve the budget, call, settle, publish
the usage (with the answer, which is what replay serves back) — and asks for answers
that must validate as a pydantic model, sending a refused answer back with the error.

A call that fails or is cancelled is recorded too (usage without an answer), so a
replay fails or waits the same way; its reservation is released.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

import structlog
from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import BaseModel

from bus import Envelope
from bus.payloads import Payload, Usage
from roles.budget import BudgetGuard
from roles.errors import CallNotMade, ModelAnswerError, ModelCallError, RoleError, TaskFailed
from roles.model_access import ModelAccess, ModelReply, estimate_tokens, fingerprint
from roles.structured import AnswerInvalid, parse_answer

__all__ = ["ModelCalls", "Publish"]

M = TypeVar("M", bound=BaseModel)

Parent = Envelope | str | None


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
        guard: BudgetGuard | None,
        publish: Publish,
        *,
        checkpoint: Callable[[], None],
        max_parse_tries: int,
    ) -> None:
        self.role = role
        self.model = model
        self.guard = guard
        self._publish = publish
        self._checkpoint = checkpoint
        self.max_parse_tries = max_parse_tries
        self.log = structlog.get_logger("roles").bind(role=role)

    async def call(
        self, messages: Sequence[LLMMessage], *, parent: Parent, task_id: str | None
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
        guard = self.guard
        held = (
            guard.reserve_call(estimate_tokens(messages), model.price_in, model.price_out)
            if guard is not None
            else None
        )
        started = time.monotonic()
        try:
            reply = await model.call(messages, task)
        except BaseException as exc:
            if guard is not None and held is not None:
                guard.release(held)
            if isinstance(exc, RoleError | CallNotMade):
                raise
            why = str(exc) if isinstance(exc, ModelCallError) else f"{type(exc).__name__}: {exc}"
            cancelled = not isinstance(exc, Exception)
            await self._unanswered(
                model, messages, started, None if cancelled else why, parent, task_id
            )
            if cancelled:
                raise
            msg = f"model call failed: {why}"
            raise TaskFailed(msg) from exc
        if guard is not None and held is not None:
            guard.settle_call(held, reply.tokens_in, reply.tokens_out, reply.cost)
        usage = Usage(
            kind="model",
            model=model.model,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost=reply.cost,
            latency_s=round(reply.latency_s, 6),
            fingerprint=reply.fingerprint,
            answer=reply.text,
        )
        await self._publish(usage, parent=parent, task_id=task_id)
        return reply

    async def _unanswered(
        self,
        model: ModelAccess,
        messages: Sequence[LLMMessage],
        started: float,
        error: str | None,
        parent: Parent,
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
            await self._publish(usage, parent=parent, task_id=task_id)
        except Exception:  # shutting down: the bus may be gone
            self.log.debug("could not record an unanswered model call")

    async def structured(
        self,
        messages: Sequence[LLMMessage],
        schema: type[M],
        *,
        what: str,
        parent: Parent,
        task_id: str | None,
    ) -> M:
        """Ask for an answer that validates as ``schema``; a bad one goes back with the error."""
        tries = self.max_parse_tries
        convo = list(messages)
        last_error = ""
        for _ in range(tries):
            reply = await self.call(convo, parent=parent, task_id=task_id)
            try:
                return parse_answer(reply.text, schema)
            except AnswerInvalid as exc:
                last_error = str(exc)
                self.log.info("model answer refused", what=what, error=last_error)
                convo += [
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
