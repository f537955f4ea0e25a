"""A manager rebuilt from a log that stops between the goal and its first plan request
(`society resume` after a kill at that moment) asks for the plan: before, the goal's
redelivery found the goal known, nothing asked, and the resumed run waited forever."""

from __future__ import annotations

import asyncio

import pytest

from bus import Bus, ConnectOptions, Envelope, runlog, subjects
from bus.payloads import Goal, PlanRequest
from bus.subjects import Channel
from bus.workqueue import delete_run_queues
from roles.context import RoleContext, RoleDeps
from roles.manager.manager import Manager
from roles.manager.restore import rebuild, resume
from roles.settings import ManagerSettings

pytestmark = [pytest.mark.nats, pytest.mark.timeout(60)]


async def _first(bus: Bus, run_id: str, channel: Channel) -> Envelope:
    """The run's first stored message on ``channel`` (waiting for it)."""
    subject = subjects.subject(run_id, channel)
    async for record in runlog.follow_run(bus, run_id, subject=subject):
        if record.envelope is not None:
            return record.envelope
    raise AssertionError(f"the log of {run_id} ended without a {channel.value}")


async def test_a_manager_stopped_before_its_first_plan_request_asks_for_it_on_resume(
    nats_url: str, run_id: str
) -> None:
    async with Bus(nats_url, name="test-restore", durable=True) as bus:
        await runlog.ensure_stream(bus)
        await bus.send(run_id, "runner/0", Goal(text="count the primes below 100"))
        async with asyncio.timeout(30):
            goal = await _first(bus, run_id, Channel.GOAL)
        context = RoleContext(
            run_id,
            ConnectOptions.from_url(nats_url),
            ManagerSettings(),
            deps=RoleDeps(capacity={"researcher": 1}),
        )
        manager = Manager(context)
        restored = rebuild(manager, [goal])
        assert not restored.asked_for_plan and manager.goal is None  # a value, not writes
        manager.adopt(restored.state)
        await manager.start()
        try:
            await resume(manager, restored)
            async with asyncio.timeout(30):
                request = await _first(bus, run_id, Channel.PLAN_REQUEST)
        finally:
            await manager.stop()
            await delete_run_queues(bus, run_id)
    assert request.sender == manager.sender
    assert request.parent_id == goal.id
    assert isinstance(request.payload, PlanRequest)
    assert (request.payload.reason, request.payload.revision) == ("initial", 1)
