"""Messages larger than the server takes travel by reference (JetStream's object store):
subscribers and the run log get them whole; a body swapped in the store is refused."""

from __future__ import annotations

import asyncio

import pytest

from bus import Bus, Envelope, runlog, subjects
from bus.bodies import BUCKET
from bus.payloads import Chat, Plan, TaskSpec

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]


def big_plan(tasks: int = 12_000) -> Plan:
    specs = [
        TaskSpec(id=f"t{i}", role="researcher", description=f"Answer question number {i}.")
        for i in range(tasks)
    ]
    return Plan(revision=1, tasks=specs, success_criteria=["all answered"])


async def heard_live(bus: Bus, received: list[Envelope], run_id: str) -> None:
    """Publish pings until the subscriber hears one (its subscription is then live)."""
    while not any(isinstance(e.payload, Chat) for e in received):
        await bus.send(run_id, "manager/0", Chat(text="ping"))
        await asyncio.sleep(0.05)


async def test_a_plan_larger_than_the_server_takes_arrives_whole(
    nats_url: str, run_id: str
) -> None:
    received: list[Envelope] = []
    got_plan = asyncio.Event()

    async def on_env(env: Envelope) -> None:
        received.append(env)
        if isinstance(env.payload, Plan):
            got_plan.set()

    async with (
        Bus(nats_url, name="planner", durable=True) as sender,
        Bus(nats_url, name="manager") as receiver,
    ):
        await runlog.ensure_stream(sender)
        await receiver.subscribe(subjects.run_wildcard(run_id), on_env)
        await asyncio.wait_for(heard_live(sender, received, run_id), 30)
        plan = big_plan()
        env = Envelope.new(run_id, "planner/0", plan)
        assert len(env.model_dump_json()) > sender.nc.max_payload  # too large for one message
        await sender.publish(env)
        await asyncio.wait_for(got_plan.wait(), 60)
        stored = await runlog.fetch_run(sender, run_id)

    [heard] = [e for e in received if isinstance(e.payload, Plan)]
    assert heard == env
    [logged] = [r.envelope for r in stored if r.envelope and isinstance(r.envelope.payload, Plan)]
    assert logged == env


async def test_a_body_swapped_in_the_store_is_refused(nats_url: str, run_id: str) -> None:
    async with Bus(nats_url, name="planner", durable=True) as bus:
        await runlog.ensure_stream(bus)
        env = Envelope.new(run_id, "planner/0", big_plan())
        await bus.publish(env)
        store = await bus.nc.jetstream().object_store(BUCKET)
        forged = env.model_dump_json().replace("planner/0", "planner/1").encode()
        await store.put(env.id, forged)  # someone with access to the store rewrites it
        stored = await runlog.fetch_run(bus, run_id)
    [record] = [r for r in stored if r.subject.endswith(".plan")]
    assert record.envelope is None
    assert "not the one it was sent with" in (record.raw or "")
