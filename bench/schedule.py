"""The manager's scheduling on a 1,000-task random DAG (fixed seed), over a real embedded
nats-server, with a simulated model latency and, optionally, a requests-per-minute limit.

Prints the makespan against the lower bound max(critical path, N / rate) and against
one-task-at-a-time execution (measured in the same run on a prefix of the tasks and scaled),
the most calls in flight at once, and the manager's own CPU time per task.

    python bench/schedule.py [--tasks 1000] [--latency 1.0] [--rpm 12000] [--layers 4]

Targets (issues 4 and 8): makespan <= 1.05x the bound with hundreds of calls in flight;
manager CPU per task under 1 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

# bench/bus.py and bench/sandbox.py shadow the packages of those names: drop bench/ from the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from autogen_core.models import LLMMessage, RequestUsage, UserMessage  # noqa: E402

from bus import Bus, ConnectOptions, EmbeddedServer, Envelope, runlog, subjects  # noqa: E402
from bus.payloads import Final, Goal, Plan, PlanRequest, TaskAssignment, TaskResult, TaskSpec  # noqa: E402
from bus.subjects import Channel  # noqa: E402
from roles.budget import BudgetSettings  # noqa: E402
from roles.context import RoleContext, RoleDeps  # noqa: E402
from roles.manager.manager import Manager  # noqa: E402
from roles.model_access import ModelAccess  # noqa: E402
from roles.settings import ManagerSettings, RoleSettings  # noqa: E402
from roles.worker import WorkerRole  # noqa: E402
from society.logs import configure_logging  # noqa: E402
from society.models.offline import OfflineClient  # noqa: E402
from society.models.ratelimit import RateLimiter  # noqa: E402
from society.models.retrying import RetryingClient  # noqa: E402


class LatencyClient(OfflineClient):
    """A model that takes ``latency`` seconds to say "ok"."""

    def __init__(self, latency: float) -> None:
        super().__init__("simulated")
        self.latency = latency
        self.in_flight = 0
        self.max_in_flight = 0

    async def answer(self, messages: Sequence[LLMMessage]) -> tuple[str, RequestUsage]:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.latency)
        finally:
            self.in_flight -= 1
        return "ok", RequestUsage(prompt_tokens=10, completion_tokens=1)


class Worker(WorkerRole[RoleSettings]):
    """A trivial role: one model call per task."""

    name = "researcher"  # a role the bus lets send results

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        await self.calls.call(
            [UserMessage(content=assignment.task.id, source="bench")],
            parent=env,
            task_id=assignment.task.id,
        )
        return TaskResult(
            task_id=assignment.task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs={o: 1 for o in assignment.task.outputs},
        )


class TimedManager(Manager):
    """The manager, measuring the CPU time of its own message handling."""

    cpu = 0.0

    async def handle(self, env: Envelope) -> None:
        start = time.process_time()
        await super().handle(env)
        TimedManager.cpu += time.process_time() - start


def watch(
    bus: Bus, run_id: str, channels: list[Channel], handler: Callable[[Envelope], Awaitable[None]]
) -> list[asyncio.Task[None]]:
    """Hand ``handler`` the run's messages on ``channels``, read from the run log: none is
    missed, however late a subscription becomes live on the server."""

    async def one(channel: Channel) -> None:
        subject = (
            subjects.run_wildcard(run_id, channel)
            if channel is Channel.TASK
            else subjects.subject(run_id, channel)
        )
        async for record in runlog.follow_run(bus, run_id, subject=subject):
            if record.envelope is not None:
                await handler(record.envelope)

    return [asyncio.get_running_loop().create_task(one(c)) for c in channels]


def random_dag(n: int, layers: int, seed: int) -> list[TaskSpec]:
    """``n`` tasks in ``layers`` layers; each task depends on up to 3 tasks of the layer before."""
    rng = random.Random(seed)
    per = n // layers
    tasks: list[TaskSpec] = []
    prev: list[str] = []
    for layer in range(layers):
        ids = [
            f"t{layer}_{i}" for i in range(per if layer < layers - 1 else n - per * (layers - 1))
        ]
        for tid in ids:
            deps = rng.sample(prev, k=min(len(prev), rng.randint(1, 3))) if prev else []
            tasks.append(
                TaskSpec(
                    id=tid,
                    role="researcher",
                    description=f"step {tid}",
                    outputs=[f"o_{tid}"],
                    inputs=[f"o_{d}" for d in deps],
                    depends_on=deps,
                    effort=1.0,
                    value=rng.uniform(0.5, 2.0),
                )
            )
        prev = ids
    return tasks


def critical_path(tasks: list[TaskSpec], latency: float) -> float:
    depth: dict[str, int] = {}
    for t in tasks:  # already in topological order
        depth[t.id] = 1 + max((depth[d] for d in t.depends_on), default=0)
    return max(depth.values()) * latency


async def run_once(
    url: str, tasks: list[TaskSpec], latency: float, rpm: float | None, concurrency: int
) -> dict[str, Any]:
    run_id = f"bench{int(time.time() * 1000) % 10**9}"
    connect = ConnectOptions.from_url(url)
    client = LatencyClient(latency)
    limiter = RateLimiter(rpm, None) if rpm else None
    model = ModelAccess(RetryingClient(client, limiter), "simulated")
    TimedManager.cpu = 0.0
    manager = TimedManager(
        RoleContext(
            run_id,
            connect,
            ManagerSettings(duplicate_threshold=100.0, task_timeout_s=3600),
            deps=RoleDeps(
                capacity={"researcher": concurrency},
                budgets=BudgetSettings(calls=None, wall_s=None, sandbox_s=None),
            ),
        )
    )
    worker = Worker(
        RoleContext(
            run_id, connect, RoleSettings(concurrency=concurrency), deps=RoleDeps(model=model)
        )
    )
    done = asyncio.Event()
    final: list[Final] = []
    async with Bus(connect, name="bench-driver") as driver:

        async def on_msg(env: Envelope) -> None:
            p = env.payload
            if isinstance(p, PlanRequest):
                await driver.send(
                    run_id,
                    "planner/0",
                    Plan(revision=p.revision, success_criteria=["all done"], tasks=tasks),
                    parent_id=env.id,
                )
            elif isinstance(p, Final):
                final.append(p)
                done.set()

        watching = watch(driver, run_id, [Channel.PLAN_REQUEST, Channel.FINAL], on_msg)
        await manager.start()
        await worker.start()
        start = time.perf_counter()
        await driver.send(run_id, "runner/0", Goal(text="run the DAG"))
        await done.wait()
        for w in watching:
            w.cancel()
        makespan = time.perf_counter() - start
        await worker.stop()
        await manager.stop()
    assert final[0].status == "succeeded", final[0].reason
    return {
        "makespan": makespan,
        "max_in_flight": client.max_in_flight,
        "manager_cpu_per_task_ms": TimedManager.cpu / len(tasks) * 1000,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--rpm", type=float, default=12000.0)
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--sequential-sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    tasks = random_dag(args.tasks, args.layers, args.seed)
    cp = critical_path(tasks, args.latency)
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedServer(Path(tmp)) as server:
            async with Bus(server.url, name="setup") as bus:
                await runlog.ensure_stream(bus)
            print(
                f"{len(tasks)} tasks in {args.layers} layers (seed {args.seed}); model latency {args.latency:g}s"
            )
            print(f"critical path {cp:.2f}s")

            free = await run_once(server.url, tasks, args.latency, None, args.concurrency)
            print(
                f"no rate limit : makespan {free['makespan']:.2f}s = {free['makespan'] / cp:.3f}x the critical path"
                f" (target <= 1.05x); {free['max_in_flight']} calls in flight at most;"
                f" manager CPU {free['manager_cpu_per_task_ms']:.3f} ms/task"
            )
            rate = args.rpm / 60
            bound = max(cp, len(tasks) / rate)
            limited = await run_once(server.url, tasks, args.latency, args.rpm, args.concurrency)
            print(
                f"rpm {args.rpm:g}    : makespan {limited['makespan']:.2f}s; bound max(cp {cp:.2f}s, N/rate {len(tasks) / rate:.2f}s)"
                f" = {bound:.2f}s -> {limited['makespan'] / bound:.3f}x (target <= 1.05x);"
                f" {limited['max_in_flight']} in flight at most; manager CPU {limited['manager_cpu_per_task_ms']:.3f} ms/task"
            )
            sample = tasks[: args.sequential_sample]
            sample = [t.model_copy(update={"depends_on": [], "inputs": []}) for t in sample]
            seq = await run_once(server.url, sample, args.latency, None, 1)
            per_task = seq["makespan"] / len(sample)
            sequential = per_task * len(tasks)
            print(
                f"one at a time : {per_task:.3f}s per task measured on {len(sample)} tasks -> {sequential:.0f}s for {len(tasks)};"
                f" parallel is {sequential / free['makespan']:.0f}x faster (rate-limited: {sequential / limited['makespan']:.0f}x)"
            )


if __name__ == "__main__":
    configure_logging("console", "warning")  # logs to stderr; stdout is for figures
    asyncio.run(main())
