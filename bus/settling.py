"""One delivered message of a work queue and how its worker settles it: ack, nak, term, and
the heartbeat that keeps a long task with its worker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

import nats.errors
import structlog
from nats.aio.msg import Msg

from bus.envelope import Envelope

__all__ = ["Delivery", "Heartbeat"]

log = structlog.get_logger("bus.workqueue")


class Delivery:
    """One delivered message: its envelope, how often it was delivered, and its ack."""

    def __init__(self, msg: Msg, envelope: Envelope) -> None:
        self._msg = msg
        self.envelope = envelope
        self.deliveries = int(msg.metadata.num_delivered or 1)
        """1 on the first delivery; more when earlier workers did not finish it."""
        self.settled = False

    async def ack(self) -> None:
        """Done with it: never deliver it again."""
        await self._settle(self._msg.ack())

    async def nak(self, delay: float | None = None) -> None:
        """Give it back, to be delivered again (after ``delay`` seconds)."""
        await self._settle(self._msg.nak(delay=delay))

    async def term(self) -> None:
        """Drop it for good (dead-lettered or refused)."""
        await self._settle(self._msg.term())

    async def progress(self) -> None:
        """Still working on it: reset the ack wait."""
        if not self.settled:
            with contextlib.suppress(nats.errors.Error):
                await self._msg.in_progress()

    async def _settle(self, op: Awaitable[None]) -> None:
        if self.settled:
            if asyncio.iscoroutine(op):
                op.close()
            return
        self.settled = True
        try:
            await op
        except nats.errors.Error as exc:  # the server redelivers; results are deduplicated
            log.debug("could not settle a delivery", error=str(exc))


class Heartbeat:
    """Tells the server every ``every`` seconds that a delivery is still being worked on."""

    def __init__(self, delivery: Delivery, every: float) -> None:
        self.delivery = delivery
        self.every = every
        self._task: asyncio.Task[None] | None = None
        self._timer = asyncio.get_running_loop().call_later(every, self._start)

    def _start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        while not self.delivery.settled:
            await self.delivery.progress()
            await asyncio.sleep(self.every)

    def cancel(self) -> None:
        """Stop beating (the delivery is settled or handed back)."""
        self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
