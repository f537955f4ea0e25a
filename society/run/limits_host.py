"""The run's limits host: in the runner's process, it answers the rate-limit and budget
requests of the run's worker processes (`bus.limits`) from the same `RateLimiter` per
model and the same `BudgetGuard` the runner's own roles use, so every process of a run
shares one rate limit per model and one budget.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import assert_never

from bus.connection import Bus, ConnectOptions, Subscription
from bus.limits import (
    AddSandbox,
    HoldCall,
    HoldSandbox,
    HoldTool,
    LimitAnswer,
    LimitAsk,
    Release,
    SettleCall,
    SettleTokens,
    SettleTool,
    TakeRate,
    serve,
)
from roles.budget import BudgetGuard
from roles.shared_budget import answer_budget
from society.models.ratelimit import RateLimiter

__all__ = ["LimitsHost"]


class LimitsHost(AbstractAsyncContextManager["LimitsHost"]):
    """Serves one run's limits on its own connection while the run lasts."""

    def __init__(
        self,
        connect: ConnectOptions,
        run_id: str,
        guard: BudgetGuard,
        limiter: Callable[[str], RateLimiter | None],
    ) -> None:
        self.bus = Bus(connect, name=f"limits-{run_id}")
        self.run_id = run_id
        self.guard = guard
        self.limiter = limiter
        self.asked = 0
        """Requests answered (for tests and the summary)."""
        self._sub: Subscription | None = None

    async def __aenter__(self) -> LimitsHost:
        await self.bus.connect()
        self._sub = await serve(self.bus, self.run_id, self.answer)
        await self.bus.flush()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()
        await self.bus.close()

    async def answer(self, role: str, request: LimitAsk) -> LimitAnswer:
        """One request of a worker process of ``role``."""
        self.asked += 1
        match request:
            case TakeRate(model=model, tokens=tokens):
                limiter = self.limiter(model)
                return LimitAnswer(wait_s=limiter.reserve(tokens) if limiter else 0.0)
            case SettleTokens(model=model, extra=extra):
                limiter = self.limiter(model)
                if limiter is not None:
                    limiter.settle(0, extra)
                return LimitAnswer()
            case (
                HoldCall()
                | HoldSandbox()
                | HoldTool()
                | SettleCall()
                | SettleTool()
                | Release()
                | AddSandbox()
            ):
                return await answer_budget(self.guard, request)
            case _:
                assert_never(request)
