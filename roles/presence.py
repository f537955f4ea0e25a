"""Who is there, folded from presence messages: role instances (the manager's capacity and
missing roles) and people attached to the run (the human gate's escalations and notes).

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

__all__ = ["HEARTBEAT_S", "STALE_S", "HumanPresence", "Instance", "PresenceRegistry"]

HEARTBEAT_S = 10.0
"""How often an attached person's client says it is still there."""
STALE_S = 3.5 * HEARTBEAT_S
"""A person not heard from for this long counts as gone (their client died)."""


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
        self,
        settings: PresenceSettings,
        clock: Callable[[], float] = time.monotonic,
        *,
        ttl_s: float | None = None,
    ) -> None:
        self.settings = settings
        self._clock = clock
        self.ttl_s = settings.heartbeat_s * settings.missed if ttl_s is None else ttl_s
        """Silence after which an instance counts as gone."""
        self._instances: dict[str, Instance] = {}
        self._missing_since: dict[str, float] = {}

    def update(self, sender: str, presence: Presence, now: float | None = None) -> None:
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
            self._clock() if now is None else now,
        )

    def live(self, role: str, now: float | None = None) -> list[Instance]:
        """The instances of ``role`` heard from within the ttl."""
        oldest = (self._clock() if now is None else now) - self.ttl_s
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


class HumanPresence(PresenceRegistry):
    """The people attached (``human/<name>`` instances), who heartbeat every `HEARTBEAT_S`."""

    def __init__(self, stale_s: float = STALE_S) -> None:
        super().__init__(PresenceSettings(heartbeat_s=HEARTBEAT_S), ttl_s=stale_s)

    def seen(self, person: str, status: str, now: float | None = None) -> None:
        """Fold in one presence message of ``person``."""
        presence = Presence(status=status, role="human")  # type: ignore[arg-type]
        self.update(f"human/{person}", presence, now)

    def attached(self, now: float | None = None) -> list[str]:
        """The people heard from recently, sorted."""
        return sorted(i.sender.partition("/")[2] for i in self.live("human", now))
