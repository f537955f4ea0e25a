"""What the NATS server refused this connection (per-user permissions), and who waits on it.

nats-py reports a refused publish or subscribe asynchronously, as an error callback with
the subject lowercased. `Refusals` turns those into records and log lines, and wakes a
stored publish waiting on that subject so it fails at once instead of timing out.
"""

from __future__ import annotations

import asyncio
import collections
import re

import structlog

from bus.errors import BusPermissionError

__all__ = ["Refusals"]

log = structlog.get_logger("bus")

_REFUSAL = re.compile(r"permissions violation for (publish|subscription) to \"?([^\"\s']+)", re.I)


class Refusals:
    """Refusals of one connection: the latest ones, and publishes waiting on a subject."""

    def __init__(self, bus_name: str) -> None:
        self.bus_name = bus_name
        self.latest: collections.deque[tuple[str, str]] = collections.deque(maxlen=100)
        """(operation, subject lowercased) of the latest refusals."""
        self._waiting: dict[str, set[asyncio.Future[None]]] = {}

    def note(self, text: str) -> bool:
        """Take in a nats error text; True if it was a refusal (then logged and recorded)."""
        found = _REFUSAL.search(text)
        if found is None:
            return False
        operation = "publishing to" if found.group(1).lower() == "publish" else "subscribing to"
        subject = found.group(2)
        self.latest.append((operation, subject))
        refusal = BusPermissionError(operation, subject, self.bus_name)
        log.error("refused by the NATS server", bus=self.bus_name, error=str(refusal))
        if operation == "publishing to":
            for waiter in self._waiting.pop(subject, set()):
                if not waiter.done():
                    waiter.set_result(None)
        return True

    def watch(self, subject: str) -> asyncio.Future[None]:
        """A future that completes if a publish to ``subject`` is refused (`forget` it after)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(subject.lower(), set()).add(waiter)
        return waiter

    def forget(self, subject: str, waiter: asyncio.Future[None]) -> None:
        """Stop watching ``subject`` with ``waiter``."""
        key = subject.lower()
        waiters = self._waiting.get(key)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiting[key]
