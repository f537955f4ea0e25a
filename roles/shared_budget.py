"""One budget across the processes of a run: a worker process's `Guard` asks the run's
limits host (the runner's `BudgetGuard`) over NATS, so what every process holds and
spends is counted in one place and a run overshoots by at most one call's answer.
Holds wait for the host's answer; settling is sent in the background, so a bus outage
delays the accounting, never the work. `answer_budget` is the host's side.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import assert_never

import structlog

from bus.connection import Bus
from bus.errors import BusError
from bus.limits import (
    AddSandbox,
    Amounts,
    BudgetAsk,
    Exceeded,
    HoldCall,
    HoldSandbox,
    HoldTool,
    LimitAnswer,
    LimitAsk,
    Release,
    SettleCall,
    SettleTool,
    ask,
)
from roles.budget import BudgetGuard, Spend
from roles.errors import BudgetExceeded

__all__ = ["RemoteGuard", "amounts", "answer_budget", "spend_of"]

log = structlog.get_logger("roles.budget")


def amounts(spend: Spend) -> Amounts:
    """A reservation, on the wire (replans are the manager's, never reserved)."""
    fields = asdict(spend)
    fields.pop("replans")
    return Amounts(**fields)


def spend_of(held: Amounts) -> Spend:
    """A reservation from the wire."""
    return Spend(**held.model_dump())


class RemoteGuard:
    """A `Guard` whose budget is held by the run's limits host (in the runner's process)."""

    def __init__(self, bus: Bus, run_id: str, role: str, patience_s: float = 300.0) -> None:
        self.bus = bus
        self.run_id = run_id
        self.role = role
        self.patience_s = patience_s
        self._settling: set[asyncio.Task[None]] = set()

    async def _ask(self, request: LimitAsk) -> LimitAnswer:
        answer = await ask(self.bus, self.run_id, self.role, request)
        if answer.exceeded is not None:
            e = answer.exceeded
            raise BudgetExceeded(e.name, e.limit, e.used, e.extra)
        return answer

    async def _settle(self, request: LimitAsk) -> None:
        """Send in the background (retried while the host is unreachable, for minutes)."""

        async def send() -> None:
            try:
                await ask(self.bus, self.run_id, self.role, request, patience_s=600)
            except BusError as exc:
                log.warning("could not settle with the limits host", error=str(exc))

        task = asyncio.get_running_loop().create_task(send())
        self._settling.add(task)
        task.add_done_callback(self._settling.discard)

    async def drain(self) -> None:
        """Wait for what is still being settled."""
        if self._settling:
            await asyncio.gather(*self._settling, return_exceptions=True)

    async def _hold(self, request: HoldCall | HoldSandbox | HoldTool) -> Spend:
        """Ask until the hold is given or refused; while it is pending (it fits only once
        steps in flight settle), ask again with backoff, then a final time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.patience_s
        delay = 0.02
        while True:
            final = loop.time() >= deadline
            answer = await self._ask(request.model_copy(update={"final": final}))
            if not answer.pending:
                return spend_of(answer.held) if answer.held is not None else Spend()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)

    async def hold_call(self, tokens_in: int, price_in: float, price_out: float) -> Spend:
        """Hold a model call in the run's budget."""
        return await self._hold(
            HoldCall(tokens_in=tokens_in, price_in=price_in, price_out=price_out)
        )

    async def settle_call(self, held: Spend, tokens_in: int, tokens_out: int, cost: float) -> None:
        """Replace a call's reservation by what it used."""
        await self._settle(
            SettleCall(held=amounts(held), tokens_in=tokens_in, tokens_out=tokens_out, cost=cost)
        )

    async def release(self, held: Spend) -> None:
        """Drop a reservation whose step never ran."""
        await self._settle(Release(held=amounts(held)))

    async def hold_sandbox(self, timeout_s: float) -> Spend:
        """Hold a sandbox run for its whole timeout."""
        return await self._hold(HoldSandbox(timeout_s=timeout_s))

    async def add_sandbox(self, seconds: float) -> None:
        """Record a sandbox run's real duration."""
        await self._settle(AddSandbox(seconds=seconds))

    async def hold_tool(self) -> Spend:
        """Hold one tool call."""
        return await self._hold(HoldTool())

    async def settle_tool(self, held: Spend) -> None:
        """A held tool call was made."""
        await self._settle(SettleTool(held=amounts(held)))


async def answer_budget(guard: BudgetGuard, request: BudgetAsk) -> LimitAnswer:
    """The runner's guard answering a budget request from another process, at once (a
    hold that must wait for steps in flight is answered ``pending``)."""
    try:
        match request:
            case HoldCall(tokens_in=t, price_in=pi, price_out=po, final=final):
                return _held(guard.attempt(guard.call_want(t, pi, po), final=final))
            case HoldSandbox(timeout_s=timeout, final=final):
                return _held(guard.attempt(Spend(sandbox_s=timeout), final=final))
            case HoldTool(final=final):
                return _held(guard.attempt(Spend(tool_calls=1), final=final))
            case SettleCall(held=held, tokens_in=t_in, tokens_out=t_out, cost=cost):
                await guard.settle_call(spend_of(held), t_in, t_out, cost)
            case SettleTool(held=held):
                await guard.settle_tool(spend_of(held))
            case Release(held=held):
                await guard.release(spend_of(held))
            case AddSandbox(seconds=seconds):
                await guard.add_sandbox(seconds)
            case _:
                assert_never(request)
    except BudgetExceeded as exc:
        return LimitAnswer(exceeded=_exceeded(exc))
    return LimitAnswer()


def _exceeded(exc: BudgetExceeded) -> Exceeded:
    return Exceeded(name=exc.name, limit=exc.limit, used=exc.used, extra=exc.extra)


def _held(held: Spend | None) -> LimitAnswer:
    return LimitAnswer(pending=True) if held is None else LimitAnswer(held=amounts(held))
