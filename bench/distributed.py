"""Tasks per second of an I/O-bound role as 1, 2 and 4 worker processes.

One embedded nats-server, one manager (in this process, started after the workers, so it
must discover them: it asks who is there), a plan of N independent tasks for a trivial
researcher, which waits ``--io-ms`` per task (a model call, a fetch) after ``--work-ms`` of
CPU. Each round runs 1, 2 and 4 worker processes (each ``--concurrency`` tasks at once)
in turn, interleaved; the ratios to one worker are per round, reported as median and
spread. The role in this process (the default `society run` layout) is measured once.

    python bench/distributed.py [--tasks 320] [--io-ms 200] [--work-ms 0] [--rounds 3]
    python bench/distributed.py --short   # seconds: small sizes, checks that it runs

Target (issue 18): 2 workers >= 1.8x and 4 >= 3.5x one worker. CPU-bound work
(``--io-ms 0 --work-ms 5``) cannot scale past the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import common  # before the project's packages: it drops bench/ from the path

from bus import Bus, ConnectOptions, EmbeddedServer, Envelope, runlog
from bus.payloads import Final, Goal, Plan, PlanRequest, TaskAssignment, TaskResult, TaskSpec
from bus.subjects import Channel
from roles.base import Role
from roles.budget import BudgetSettings
from roles.context import RoleContext, RoleDeps
from roles.manager.manager import Manager
from roles.settings import ManagerSettings, RoleSettings
from roles.worker import WorkerRole
from society.logs import configure_logging
from society.run.gc_policy import settle_after_startup


class Echo(WorkerRole[RoleSettings]):
    """A trivial role: ``work_ms`` of CPU, then the task's outputs."""

    name = "researcher"  # a role the bus lets send results
    work_ms = 0.0
    io_ms = 0.0

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        end = time.perf_counter() + self.work_ms / 1000
        while time.perf_counter() < end:
            pass
        if self.io_ms:
            await asyncio.sleep(self.io_ms / 1000)
        return TaskResult(
            task_id=assignment.task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs={o: 1 for o in assignment.task.outputs},
            verdicts=[common.cited(assignment.task.id)],
        )


def echo(run_id: str, url: str, concurrency: int, instance: str) -> Role[Any]:
    settings = RoleSettings(concurrency=concurrency)
    return Echo(RoleContext(run_id, ConnectOptions.from_url(url), settings, instance))


async def serve_worker(args: argparse.Namespace) -> None:
    """The worker process: one Echo instance for the run until SIGTERM."""
    Echo.work_ms, Echo.io_ms = args.work_ms, args.io_ms
    role = echo(args.run, args.url, args.concurrency, f"p{os.getpid()}")
    await role.start()
    print("ready", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await role.stop()


async def run_once(
    url: str, tasks: list[TaskSpec], concurrency: int, processes: int, work_ms: float, io_ms: float
) -> float:
    """Tasks per second for one layout: 0 processes means the role runs in this process."""
    run_id = f"bench{time.time_ns() % 10**12}"
    manager = Manager(
        RoleContext(
            run_id,
            ConnectOptions.from_url(url),
            ManagerSettings(duplicate_threshold=100.0, task_timeout_s=3600),
            deps=RoleDeps(
                capacity={"researcher": concurrency},
                budgets=BudgetSettings(calls=None, wall_s=None, sandbox_s=None),
            ),
        )
    )
    here: list[Role[Any]] = []
    procs: list[asyncio.subprocess.Process] = []
    if processes == 0:
        Echo.work_ms, Echo.io_ms = work_ms, io_ms
        here.append(echo(run_id, url, concurrency, "here"))
    else:
        for _ in range(processes):
            cmd = [sys.executable, __file__, "--serve-worker", "--url", url, "--run", run_id]
            cmd += ["--work-ms", str(work_ms), "--io-ms", str(io_ms)]
            cmd += ["--concurrency", str(concurrency)]
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

        watching = runlog.watch_run(
            driver, run_id, [Channel.PLAN_REQUEST, Channel.FINAL, Channel.TASK], on_msg
        )
        await manager.start()
        for role in here:
            await role.start()
        await driver.send(run_id, "runner/0", Goal(text="echo everything"))
        await done.wait()
        for w in watching:
            w.cancel()
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


SHORT = {"tasks": 40, "io_ms": 20.0, "rounds": 1}
"""The sizes of ``--short`` (`common.parse`)."""


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=320)
    parser.add_argument("--work-ms", type=float, default=0.0)
    parser.add_argument("--io-ms", type=float, default=200.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--serve-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = common.parse(parser, SHORT)
    configure_logging("console", "warning")  # logs to stderr; stdout is for figures
    if args.serve_worker:
        await serve_worker(args)
        return
    tasks = [
        TaskSpec(id=f"t{i}", role="researcher", description=f"echo {i}", outputs=[f"o{i}"])
        for i in range(args.tasks)
    ]
    print(
        f"{args.tasks} independent tasks of a trivial role ({args.io_ms:g} ms I/O, "
        f"{args.work_ms:g} ms CPU each), {args.concurrency} at once per instance; "
        f"{os.cpu_count()} CPU cores"
    )
    once = (args.concurrency, args.work_ms, args.io_ms)
    ratios: dict[int, list[float]] = {2: [], 4: []}
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedServer(Path(tmp)) as server:
            async with Bus(server.url, name="setup") as bus:
                await runlog.ensure_stream(bus)
                await runlog.queues_fed(bus)  # the first run does not pay for the streams' creation
            here = await run_once(server.url, tasks, args.concurrency, 0, *once[1:])
            print(f"  in-process role: {here:8.1f} tasks/s")
            for r in range(args.rounds):
                rates = {
                    n: await run_once(server.url, tasks, args.concurrency, n, *once[1:])
                    for n in (1, 2, 4)
                }
                for n in (2, 4):
                    ratios[n].append(rates[n] / rates[1])
                print(
                    f"  round {r + 1}: "
                    + ", ".join(
                        f"{n} worker{'s' if n > 1 else ''} {v:.1f} tasks/s"
                        for n, v in rates.items()
                    )
                    + f"; 2/1 {rates[2] / rates[1]:.2f}x, 4/1 {rates[4] / rates[1]:.2f}x"
                )
    for n, target in ((2, 1.8), (4, 3.5)):
        values = sorted(ratios[n])
        print(
            f"{n} workers / 1 worker: median {statistics.median(values):.2f}x, spread "
            f"{values[0]:.2f}-{values[-1]:.2f} over {len(values)} rounds (target >= {target})"
        )


if __name__ == "__main__":
    settle_after_startup()  # the collector as `society run` and `society worker` set it
    asyncio.run(main())
