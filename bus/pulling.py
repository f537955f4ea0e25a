"""Streaming pulls: pull requests kept open on a JetStream consumer, and every message handed
on the moment it arrives.

nats-py's ``fetch`` asks, waits until its whole batch came (or its request expired), and only
then returns: a burst of tasks reaches its handlers all at once at the end, and work that
trickles in pays a round trip per message. A `Puller` instead keeps requests for as many
messages as its owner has room for open on the server, and counts what they still owe: a
message pays one back, and the status that ends a request early (expired, consumer gone)
says how many it still owed (``Nats-Pending-Messages``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable

import nats.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import api

from bus import subjects

__all__ = ["Puller"]

log = structlog.get_logger("bus.pulling")

HEARTBEAT = "100"
PENDING = "Nats-Pending-Messages"
GRACE_S = 2.0
"""How long past its expiry a request that never said so is still counted."""


class Puller:
    """Keeps up to the room its owner reports requested from one consumer; hands messages on."""

    def __init__(
        self,
        nc: Client,
        stream: str,
        consumer: str,
        on_msg: Callable[[Msg], Awaitable[None]],
        on_closed: Callable[[], None],
        *,
        expires_s: float,
        least: int = 1,
    ) -> None:
        self._nc = nc
        self._next = f"{subjects.JS_API}.CONSUMER.MSG.NEXT.{stream}.{consumer}"
        self._on_msg = on_msg
        self._on_closed = on_closed
        self.expires_s = expires_s
        self.least = max(1, least)
        """Ask for fewer than this only when nothing is asked for (one request per batch)."""
        self._inbox = ""
        self._ids = itertools.count()
        self._batches: dict[str, tuple[int, float]] = {}
        """The size and deadline of each request not known to have ended."""
        self._owed = 0
        self._last_deadline = 0.0
        self._sub: Subscription | None = None
        self.doubt: str | None = None
        """Why the consumer may be gone (the server said so, or a request's end was lost)."""
        self.setback: str | None = None
        """Why the server ended a request early though the consumer is there (too many
        waiting, a leader change): ask again after a pause, not at once."""

    @property
    def owed(self) -> int:
        """Messages asked for and not yet delivered."""
        return self._owed

    async def start(self) -> None:
        """Subscribe to this puller's inboxes (no request yet: see `ask`)."""
        self._inbox = self._nc.new_inbox()
        self._sub = await self._nc.subscribe(f"{self._inbox}.*", cb=self._arrived)

    async def stop(self) -> None:
        """Stop receiving; what was asked for and not delivered goes to others at expiry."""
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error, ValueError):
                await self._sub.unsubscribe()
            self._sub = None
        self._owed = 0
        self._batches.clear()

    async def ask(self, room: int) -> None:
        """Make what is asked for match ``room`` (free handler slots), when that is worth a request."""
        now = asyncio.get_running_loop().time()
        if self._owed and now > self._last_deadline:
            # Every request has expired, and the end of some was lost (a reconnect?).
            self.doubt = "pull requests expired without a word from the server"
            self._owed = 0
        self._batches = {t: b for t, b in self._batches.items() if b[1] >= now}
        more = room - self._owed
        if more <= 0 or (self._owed and more < self.least):
            return
        token = str(next(self._ids))
        request = {"batch": more, "expires": int(self.expires_s * 1e9)}
        await self._nc.publish(
            self._next, json.dumps(request).encode(), reply=f"{self._inbox}.{token}"
        )
        self._owed += more
        self._last_deadline = now + self.expires_s + GRACE_S
        self._batches[token] = (more, self._last_deadline)

    async def _arrived(self, msg: Msg) -> None:
        status = msg.headers.get(api.Header.STATUS) if msg.headers else None
        if status is None:
            self._owed = max(0, self._owed - 1)
            await self._on_msg(msg)
            if not self._owed:  # every request is spent: room left now needs a new one
                self._on_closed()
            return
        if status == HEARTBEAT:
            return
        # 404/408: nothing more for this request; 409: ended early (deleted, leadership, limits)
        batch, _ = self._batches.pop(msg.subject.rpartition(".")[2], (0, 0.0))
        headers = msg.headers or {}
        unpaid = headers.get(PENDING)
        self._owed = max(0, self._owed - (int(unpaid) if unpaid else batch))
        description = headers.get(api.Header.DESCRIPTION, "")
        if status not in ("404", "408"):
            log.debug("pull request ended", status=status, description=description)
            if status == "409" and "deleted" not in description.lower():
                self.setback = f"{status} {description}"
            else:  # deleted, or no responders (no stream, JetStream down)
                self.doubt = f"{status} {description}"
        self._on_closed()
