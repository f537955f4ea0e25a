"""WorkerRole over its work queue (real nats-server): a stopped worker hands its task to
another without a result; a task no worker finishes is reported failed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bus import Bus, ConnectOptions, DeliverySettings, Envelope, QueueSpec, runlog, subjects
from bus.payloads import TaskAssignment, TaskResult, TaskSpec
from bus.runlog import queue_stream
from bus.subjects import Channel
from bus.workqueue import delete_run_queues, ensure_queue
from roles.context import RoleContext
from roles.settings import RoleSettings
from roles.worker import WorkerRole

pytestmark = [pytest.mark.nats, pytest.mark.timeout(30)]


class Slow(WorkerRole[RoleSettings]):
    """Works until told to finish; says when it started."""

    name = "researcher"  # a role that may send results
    started: asyncio.Event
    finish: asyncio.Event

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        self.started.set()
        await self.finish.wait()
        return TaskResult(
            task_id=assignment.task.id, role=self.name, attempt=assignment.attempt, status="done"
        )


def slow(nats_url: str, run_id: str, instance: str, delivery: DeliverySettings) -> Slow:
    ctx = RoleContext(
        run_id, ConnectOptions.from_url(nats_url), RoleSettings(), instance, delivery=delivery
    )
    role = Slow(ctx)
    role.started, role.finish = asyncio.Event(), asyncio.Event()
    return role


@pytest.fixture
async def manager(nats_url: str, run_id: str) -> AsyncIterator[tuple[Bus, asyncio.Queue[Envelope]]]:
    """A bus that assigns tasks and hears the results."""
    results: asyncio.Queue[Envelope] = asyncio.Queue()

    async def on_result(env: Envelope) -> None:
        results.put_nowait(env)

    async with Bus(nats_url, name="manager", durable=True) as bus:
        await runlog.ensure_stream(bus)
        await bus.subscribe(subjects.subject(run_id, Channel.RESULT), on_result)
        await bus.flush()
        yield bus, results
        await delete_run_queues(bus, run_id)


def assign(task_id: str) -> TaskAssignment:
    return TaskAssignment(task=TaskSpec(id=task_id, role="researcher", description="d"), goal="g")


async def test_a_stopped_worker_hands_its_task_to_another_without_a_result(
    nats_url: str, run_id: str, manager: tuple[Bus, asyncio.Queue[Envelope]]
) -> None:
    bus, results = manager
    delivery = DeliverySettings(ack_wait_s=30)  # the hand-back must not wait for this
    first = slow(nats_url, run_id, "a", delivery)
    await first.start()
    mid = await bus.send(run_id, "manager/0", assign("t1"), task_id="t1")
    await first.started.wait()
    second = slow(nats_url, run_id, "b", delivery)
    second.finish.set()
    await second.start()
    await first.stop()  # a shutdown, not a cancel: no result, the task goes back
    async with asyncio.timeout(10):
        result = await results.get()
    await second.stop()
    assert result.sender == "researcher/b" and result.parent_id == mid
    assert isinstance(result.payload, TaskResult) and result.payload.status == "done"
    assert results.empty()


async def test_a_task_no_worker_finishes_is_reported_failed(
    nats_url: str, run_id: str, manager: tuple[Bus, asyncio.Queue[Envelope]]
) -> None:
    bus, results = manager
    delivery = DeliverySettings(ack_wait_s=0.3, max_deliveries=1)
    spec = QueueSpec.tasks("researcher", 1)
    name = await ensure_queue(bus, run_id, spec, delivery)
    async with Bus(nats_url, name="crashed") as crashed:
        silent = await crashed.js.pull_subscribe_bind(name, stream=queue_stream(spec.name))
        mid = await bus.send(run_id, "manager/0", assign("t1"), task_id="t1")
        await silent.fetch(1, timeout=5)  # taken, never finished
        role = slow(nats_url, run_id, "c", delivery)
        await role.start()
        async with asyncio.timeout(10):
            result = await results.get()
        await role.stop()
    assert not role.started.is_set()
    assert isinstance(result.payload, TaskResult) and result.payload.status == "failed"
    assert result.parent_id == mid
    assert "no researcher worker finished it in 1 deliveries" in (result.payload.error or "")
