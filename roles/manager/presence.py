"""Which role instances are alive, as the manager sees it from their presence messages.

Instances announce themselves (``up``), heartbeat, and leave (``down``); one that misses
``missed`` heartbeats in a row counts as gone (a worker killed outright says nothing).
The registry gives each role's live capacity, which the scheduler dispatches within, and
names the roles the run needs that have had no live instance for longer than the wait,
so the manager can fail the run saying which worker to start instead of waiting forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bus.payloads import Presence
from roles.settings import PresenceSettings

__all__ = ["Instance", "PresenceRegistry"]


@dataclass
class Instance:
    """One live role instance."""

    sender: str
    role: str
    concurrency: int
    host: str
    pid: int
    seen: float
    """When it last said something (monotonic seconds)."""


class PresenceRegistry:
    """Live instances by sender, and how long each needed role has gone unserved."""

    def __init__(
        self, settings: PresenceSettings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self._clock = clock
        self._instances: dict[str, Instance] = {}
        self._missing_since: dict[str, float] = {}

    @property
    def ttl_s(self) -> float:
        """Silence after which an instance counts as gone."""
        return self.settings.heartbeat_s * self.settings.missed

    def update(self, sender: str, presence: Presence) -> None:
        """Take in an ``up``, ``heartbeat`` or ``down`` of ``sender``."""
        if presence.status == "down":
            self._instances.pop(sender, None)
            return
        self._instances[sender] = Instance(
            sender,
            presence.role,
            presence.concurrency,
            presence.host,
            presence.pid,
            self._clock(),
        )

    def live(self, role: str) -> list[Instance]:
        """The instances of ``role`` heard from within the ttl."""
        oldest = self._clock() - self.ttl_s
        return [i for i in self._instances.values() if i.role == role and i.seen >= oldest]

    def capacity(self, role: str) -> int:
        """Tasks the live instances of ``role`` can take at once (0: nobody is there)."""
        return sum(i.concurrency for i in self.live(role))

    def capacities(self, configured: dict[str, int]) -> dict[str, int]:
        """Each role's capacity: its live instances', or the configured one while none is live."""
        return {role: self.capacity(role) or cap for role, cap in configured.items()}

    def resize(self, capacity: dict[str, int], configured: dict[str, int]) -> bool:
        """Update a scheduler's ``capacity`` in place; True if some role's grew."""
        grew = False
        for role, cap in self.capacities(configured).items():
            grew = grew or cap > capacity.get(role, 0)
            capacity[role] = cap
        return grew

    def missing(self, role: str) -> str:
        """Why the run stops when ``role`` is overdue, and what to do about it."""
        return (
            f"no live {role} worker for {self.settings.wait_s:g}s and the run needs one; "
            f"start one with `society worker --role {role} --nats URL`"
        )

    def overdue(self, needed: Iterable[str]) -> list[str]:
        """Needed roles that have had no live instance for at least the wait."""
        now = self._clock()
        wanted = set(needed)
        for role in list(self._missing_since):
            if role not in wanted:
                del self._missing_since[role]
        for role in wanted:
            if self.live(role):
                self._missing_since.pop(role, None)
            else:
                self._missing_since.setdefault(role, now)
        wait = self.settings.wait_s
        return sorted(r for r, since in self._missing_since.items() if now - since >= wait)
