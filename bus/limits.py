"""The wire of a run's shared limits: one rate limit per model and one budget across every
process of a run, held by the limits host in the runner's process and asked over NATS
request/reply (``society_limits.<run>.<role>``, outside the run log).

A request is one typed `LimitAsk`; the answer is a `LimitAnswer`. `ask` retries while no
host answers yet (a worker may start before its run's runner), then fails with a
`BusError` that says so; `serve` answers each request with its handler's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal

import nats.errors
import structlog
from nats.aio.msg import Msg
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from bus import subjects
from bus.connection import Bus, Subscription
from bus.errors import BusError

__all__ = [
    "AddSandbox",
    "Amounts",
    "BudgetAsk",
    "Exceeded",
    "HoldCall",
    "HoldSandbox",
    "HoldTool",
    "LimitAnswer",
    "LimitAsk",
    "RateAsk",
    "Release",
    "SettleCall",
    "SettleTokens",
    "SettleTool",
    "TakeRate",
    "ask",
    "serve",
]

log = structlog.get_logger("bus.limits")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Amounts(_Wire):
    """What a reservation holds (the budget's `Spend`, on the wire)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    sandbox_s: float = 0.0
    tool_calls: int = 0


class TakeRate(_Wire):
    """A place for one request of about ``tokens`` tokens under ``model``'s rate limit."""

    type: Literal["take_rate"] = "take_rate"
    model: str
    tokens: int = Field(default=0, ge=0)


class SettleTokens(_Wire):
    """A call used ``extra`` tokens more (or fewer, negative) than it took a place for."""

    type: Literal["settle_tokens"] = "settle_tokens"
    model: str
    extra: int


class HoldCall(_Wire):
    """Reserve a model call of ``tokens_in`` prompt tokens at these prices."""

    type: Literal["hold_call"] = "hold_call"
    final: bool = False
    """Refuse rather than answer ``pending`` (the asker has waited long enough)."""
    tokens_in: int = Field(ge=0)
    price_in: float = Field(default=0.0, ge=0)
    price_out: float = Field(default=0.0, ge=0)


class HoldSandbox(_Wire):
    """Reserve a sandbox run for its whole timeout."""

    type: Literal["hold_sandbox"] = "hold_sandbox"
    final: bool = False
    timeout_s: float = Field(gt=0)


class HoldTool(_Wire):
    """Reserve one tool call."""

    type: Literal["hold_tool"] = "hold_tool"
    final: bool = False


class SettleCall(_Wire):
    """Replace a call's reservation by what it used."""

    type: Literal["settle_call"] = "settle_call"
    held: Amounts
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    cost: float = Field(ge=0)


class SettleTool(_Wire):
    """A held tool call was made."""

    type: Literal["settle_tool"] = "settle_tool"
    held: Amounts


class Release(_Wire):
    """Drop a reservation whose step never ran."""

    type: Literal["release"] = "release"
    held: Amounts


class AddSandbox(_Wire):
    """A sandbox run took ``seconds``."""

    type: Literal["add_sandbox"] = "add_sandbox"
    seconds: float = Field(ge=0)


RateAsk = TakeRate | SettleTokens
"""Requests to a model's rate limit."""
BudgetAsk = HoldCall | HoldSandbox | HoldTool | SettleCall | SettleTool | Release | AddSandbox
"""Requests to the run's budget."""
LimitAsk = Annotated[RateAsk | BudgetAsk, Field(discriminator="type")]
_ASK: TypeAdapter[LimitAsk] = TypeAdapter(LimitAsk)


class Exceeded(_Wire):
    """The budget a reservation would cross (the roles' `BudgetExceeded`, on the wire)."""

    name: str
    limit: float
    used: float
    extra: float | None = None


class LimitAnswer(_Wire):
    """The host's answer: how long to wait for a rate-limit place, what was held, or the
    budget that refused; ``error`` when the request itself was wrong."""

    wait_s: float = 0.0
    held: Amounts | None = None
    pending: bool = False
    """A hold fits only once steps in flight settle: ask again a little later."""
    exceeded: Exceeded | None = None
    error: str | None = None


async def ask(
    bus: Bus,
    run_id: str,
    role: str,
    request: LimitAsk,
    *,
    timeout_s: float = 10.0,
    patience_s: float = 60.0,
) -> LimitAnswer:
    """Ask the run's limits host; retries while no host answers (for ``patience_s``)."""
    subject = subjects.limits_subject(run_id, role)
    data = request.model_dump_json().encode()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + patience_s
    delay = 0.05
    while True:
        try:
            reply = await bus.nc.request(subject, data, timeout=timeout_s)
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError) as exc:
            if loop.time() >= give_up:
                msg = (
                    f"no limits host answers for run {run_id} on {subject} (is its runner "
                    f"up, and may role {role} publish there?): {type(exc).__name__}"
                )
                raise BusError(msg) from exc
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
            continue
        except nats.errors.Error as exc:
            msg = f"asking the limits host of run {run_id} failed: {exc}"
            raise BusError(msg) from exc
        answer = LimitAnswer.model_validate_json(reply.data)
        if answer.error is not None:
            msg = f"the limits host of run {run_id} refused the request: {answer.error}"
            raise BusError(msg)
        return answer


Handler = Callable[[str, LimitAsk], Awaitable[LimitAnswer]]
"""Answers one request: (asking role, request) -> answer."""


async def serve(bus: Bus, run_id: str, handler: Handler) -> Subscription:
    """Answer every request to ``run_id``'s limits with ``handler``."""

    async def on_msg(msg: Msg) -> None:
        role = msg.subject.rsplit(".", 1)[-1]
        try:
            request = _ASK.validate_json(msg.data)
        except ValidationError as exc:
            answer = LimitAnswer(error=f"not a limits request: {exc.errors()[0]['msg']}")
        else:
            try:
                answer = await handler(role, request)
            except Exception as exc:
                log.exception("limits request failed", run=run_id, role=role)
                answer = LimitAnswer(error=f"{type(exc).__name__}: {exc}")
        if msg.reply:
            try:
                await msg.respond(answer.model_dump_json().encode())
            except nats.errors.Error as exc:
                log.warning("could not answer a limits request", run=run_id, error=str(exc))

    pattern = subjects.limits_wildcard(run_id)
    try:
        sub = await bus.nc.subscribe(pattern, cb=on_msg)
    except nats.errors.Error as exc:
        msg = f"serving the limits of run {run_id} failed: {exc}"
        raise BusError(msg) from exc
    return Subscription(sub, pattern)
