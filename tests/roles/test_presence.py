"""The manager's presence registry: who is alive, capacity, and how long a role is missing."""

from __future__ import annotations

from bus.payloads import Presence
from roles.presence import PresenceRegistry
from roles.settings import PresenceSettings


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def registry(clock: Clock) -> PresenceRegistry:
    return PresenceRegistry(PresenceSettings(heartbeat_s=1, missed=3, wait_s=10), clock)


def up(role: str, concurrency: int = 1, status: str = "up") -> Presence:
    return Presence(status=status, role=role, concurrency=concurrency)  # type: ignore[arg-type]


def test_instances_are_live_until_they_leave_or_fall_silent() -> None:
    clock = Clock()
    reg = registry(clock)
    reg.update("coder/a", up("coder", 2))
    reg.update("coder/b", up("coder", 1))
    assert reg.capacity("coder") == 3
    clock.now += 2.5
    reg.update("coder/a", up("coder", 2, "heartbeat"))
    clock.now += 1.0  # b silent for 3.5 s > 3 missed heartbeats
    assert [i.sender for i in reg.live("coder")] == ["coder/a"]
    reg.update("coder/a", up("coder", status="down"))
    assert reg.capacity("coder") == 0


def test_capacity_follows_live_workers_and_falls_back_to_the_configured() -> None:
    reg = registry(Clock())
    configured = {"coder": 1, "researcher": 2}
    assert reg.capacities(configured) == {"coder": 1, "researcher": 2}
    reg.update("coder/a", up("coder", 4))
    scheduler_capacity = {"coder": 1, "researcher": 2}
    assert reg.resize(scheduler_capacity, configured) is True
    assert scheduler_capacity == {"coder": 4, "researcher": 2}
    assert reg.resize(scheduler_capacity, configured) is False


def test_a_needed_role_with_nobody_is_overdue_after_the_wait() -> None:
    clock = Clock()
    reg = registry(clock)
    assert reg.overdue({"coder"}) == []
    clock.now += 9
    assert reg.overdue({"coder"}) == []
    clock.now += 1
    assert reg.overdue({"coder", "planner"}) == ["coder"]  # the planner just started missing
    reg.update("coder/a", up("coder"))
    assert reg.overdue({"coder"}) == []
    assert "society worker --role coder" in reg.missing("coder")
