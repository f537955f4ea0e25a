"""A model's rate limit shared by every process of a run: a worker process takes its
places from the run's limits host (the runner's `RateLimiter`) over NATS and waits until
they are due, so N processes together stay within the one limit the provider gave.
"""

from __future__ import annotations

import asyncio

import structlog

from bus.connection import Bus
from bus.errors import BusError
from bus.limits import SettleTokens, TakeRate, ask

__all__ = ["SharedRateLimiter"]

log = structlog.get_logger("society.models")


class SharedRateLimiter:
    """A `Limiter` whose buckets live in the run's limits host."""

    def __init__(self, bus: Bus, run_id: str, role: str, model: str, tpm: bool) -> None:
        self.bus = bus
        self.run_id = run_id
        self.role = role
        self.model = model
        self._tpm = tpm
        self._settling: set[asyncio.Task[None]] = set()

    @property
    def counts_tokens(self) -> bool:
        """Whether the model has a tokens-per-minute limit."""
        return self._tpm

    async def acquire(self, tokens: int) -> float:
        """Take a place from the host, then wait until it is due."""
        began = asyncio.get_running_loop().time()
        answer = await ask(
            self.bus, self.run_id, self.role, TakeRate(model=self.model, tokens=tokens)
        )
        if answer.wait_s > 0:
            await asyncio.sleep(answer.wait_s)
        return asyncio.get_running_loop().time() - began

    def settle(self, estimated: int, actual: int) -> None:
        """Tell the host what the call really used (in the background)."""
        if not self._tpm or actual == estimated:
            return
        task = asyncio.get_running_loop().create_task(self._settle(actual - estimated))
        self._settling.add(task)
        task.add_done_callback(self._settling.discard)

    async def _settle(self, extra: int) -> None:
        try:
            await ask(self.bus, self.run_id, self.role, SettleTokens(model=self.model, extra=extra))
        except BusError as exc:
            log.warning("could not settle tokens with the limits host", error=str(exc))
