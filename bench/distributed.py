"""Tasks per second of a trivial role: in-process against 1, 2 and 4 worker processes.

One embedded nats-server, one manager (in this process), a plan of N independent tasks
for the role ``echo``, which spends ``--work-ms`` of CPU per task and returns. The same
run order measures the role in this process (the default `society run` layout: its own
connection, same work queue) and then as 1, 2 and 4 separate worker processes (each
``--concurrency`` tasks at once), and prints tasks/s with the ratio to in-process.

    python bench/distributed.py [--tasks 600] [--work-ms 5] [--concurrency 4]

CPU-bound work cannot scale past the machine's cores (printed with the figures); the
delivery overhead alone is measured with ``--work-ms 0``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench/bus.py and bench/sandbox.py shadow the packages of those names: drop bench/ from the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from bus import Bus, ConnectOptions, EmbeddedServer, Envelope, runlog, subjects  # noqa: E402
from bus.payloads import Final, Goal, Plan, PlanRequest, TaskAssignment, TaskResult, TaskSpec  # noqa: E402
from bus.subjects import Channel  # noqa: E402
from roles.base import Role  # noqa: E402
from roles.budget import BudgetSettings  # noqa: E402
from roles.context import RoleContext, RoleDeps  # noqa: E402
from roles.manager.manager import Manager  # noqa: E402
from roles.settings import ManagerSettings, RoleSettings  # noqa: E402
from roles.worker import WorkerRole  # noqa: E402
from society.logs import configure_logging  # noqa: E402


class Echo(WorkerRole[RoleSettings]):
    """A trivial role: ``work_ms`` of CPU, then the task's outputs."""

    name = "echo"
    work_ms = 0.0

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        end = time.perf_counter() + self.work_ms / 1000
        while time.perf_counter() < end:
            pass
        return TaskResult(
            task_id=assignment.task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs={o: 1 for o in assignment.task.outputs},
        )


def echo(run_id: str, url: str, concurrency: int, instance: str) -> Role[Any]:
    settings = RoleSettings(concurrency=concurrency)
    return Echo(RoleContext(run_id, ConnectOptions.from_url(url), settings, instance))


async def serve_worker(args: argparse.Namespace) -> None:
    """The worker process: one Echo instance for the run until SIGTERM."""
    Echo.work_ms = args.work_ms
    role = echo(args.run, args.url, args.concurrency, f"p{os.getpid()}")
    await role.start()
    print("ready", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await role.stop()


async def run_once(
    url: str, tasks: list[TaskSpec], concurrency: int, processes: int, work_ms: float
) -> float:
    """Tasks per second for one layout: 0 processes means the role runs in this process."""
    run_id = f"bench{time.time_ns() % 10**12}"
    manager = Manager(
        RoleContext(
            run_id,
            ConnectOptions.from_url(url),
            ManagerSettings(duplicate_threshold=100.0, task_timeout_s=3600),
            deps=RoleDeps(
                capacity={"echo": concurrency},
                budgets=BudgetSettings(calls=None, wall_s=None, sandbox_s=None),
            ),
        )
    )
    here: list[Role[Any]] = []
    procs: list[asyncio.subprocess.Process] = []
    if processes == 0:
        Echo.work_ms = work_ms
        here.append(echo(run_id, url, concurrency, "here"))
    else:
        for _ in range(processes):
            cmd = [sys.executable, __file__, "--serve-worker", "--url", url, "--run", run_id]
            cmd += ["--work-ms", str(work_ms), "--concurrency", str(concurrency)]
            procs.append(await asyncio.create_subprocess_exec(*cmd, stdout=subprocess.PIPE))
        for proc in procs:  # wait for each to say it is ready
            assert proc.stdout is not None
            line = await proc.stdout.readline()
            assert line.strip() == b"ready", line
    done = asyncio.Event()
    first_task: list[float] = []
    final: list[Final] = []
    async with Bus(url, name="bench-driver", durable=True) as driver:

        async def on_msg(env: Envelope) -> None:
            p = env.payload
            if isinstance(p, PlanRequest):
                plan = Plan(revision=p.revision, success_criteria=["all done"], tasks=tasks)
                await driver.send(run_id, "planner/0", plan, parent_id=env.id)
            elif isinstance(p, TaskAssignment) and not first_task:
                first_task.append(time.perf_counter())
            elif isinstance(p, Final):
                final.append(p)
                done.set()

        for channel in (Channel.PLAN_REQUEST, Channel.FINAL):
            await driver.subscribe(subjects.subject(run_id, channel), on_msg)
        await driver.subscribe(subjects.run_wildcard(run_id, Channel.TASK), on_msg)
        await driver.flush()
        await manager.start()
        for role in here:
            await role.start()
        await driver.send(run_id, "bench/0", Goal(text="echo everything"))
        await done.wait()
        elapsed = time.perf_counter() - first_task[0]
        for role in here:
            await role.stop()
        await manager.stop()
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        await proc.wait()
    assert final[0].status == "succeeded", final[0].reason
    return len(tasks) / elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=600)
    parser.add_argument("--work-ms", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--serve-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    configure_logging("console", "warning")  # logs to stderr; stdout is for figures
    if args.serve_worker:
        await serve_worker(args)
        return
    tasks = [
        TaskSpec(id=f"t{i}", role="echo", description=f"echo {i}", outputs=[f"o{i}"])
        for i in range(args.tasks)
    ]
    print(
        f"{args.tasks} independent tasks of a trivial role ({args.work_ms:g} ms CPU each), "
        f"{args.concurrency} at once per instance; {os.cpu_count()} CPU cores"
    )
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedServer(Path(tmp)) as server:
            async with Bus(server.url, name="setup") as bus:
                await runlog.ensure_stream(bus)
            base = await run_once(server.url, tasks, args.concurrency, 0, args.work_ms)
            print(f"in-process roles : {base:8.1f} tasks/s   1.00x")
            for n in (1, 2, 4):
                rate = await run_once(server.url, tasks, args.concurrency, n, args.work_ms)
                print(
                    f"{n} worker process{'es' if n > 1 else '  '}: {rate:8.1f} tasks/s   {rate / base:.2f}x"
                )


if __name__ == "__main__":
    asyncio.run(main())
