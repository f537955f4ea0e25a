"""A coder worker joins a run at once and starts its sandbox meanwhile: a slow Docker makes
its first execution wait, never the manager think there is no coder."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from bus import Bus
from bus.payloads import Goal, Presence
from roles.execution import CodeRunner
from sandbox.result import ExecutionResult
from society.connect import connect_options
from society.run.worker import WorkerHost, WorkerOptions
from society.scenario import Scenario

from .test_distributed import run_external
from .workers import Watcher

pytestmark = pytest.mark.timeout(120)

CODE = """
name: slow_sandbox
goal: {text: Write some code.}
models: {default: {provider: scripted}}
presence: {heartbeat_s: 0.2, wait_s: 30}
# one program, no second computation: the fake sandbox below runs no check (the point is
# when the coder joins), so the run ends unverified
roles: {coder: {cross_check: false}}
script:
  coder:
    - answer: "```python\\nprint(6 * 7)\\n```"
"""


class SlowStart:
    """A code runner whose start waits until the test releases it."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = asyncio.Event()
        self.executed = 0
        self.closed = False

    async def __aenter__(self) -> CodeRunner:
        self.entered.set()
        await self.release.wait()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.closed = True

    async def execute(
        self, code: str, files: Mapping[str, bytes] | None = None, timeout_s: float | None = None
    ) -> ExecutionResult:
        self.executed += 1
        return ExecutionResult(exit_code=0, files={"outputs.json": b'{"answer": 42}'})


async def test_a_coder_joins_while_its_sandbox_starts(
    nats_url: str, run_id: str, tmp_path: Path
) -> None:
    runner = SlowStart()

    def slow(scenario: Scenario, run: str) -> AbstractAsyncContextManager[CodeRunner]:
        return runner

    async with Bus(nats_url, name="watch") as bus:
        watch = await Watcher(bus, run_id).start()
        run = run_external(CODE, nats_url, run_id, tmp_path)
        await watch.first(lambda e: isinstance(e.payload, Goal), unless=run)
        coder = WorkerOptions("coder", connect_options(nats_url, role="coder"), run_id=run_id)
        planner = WorkerOptions("planner", connect_options(nats_url, role="planner"))
        async with WorkerHost(planner), WorkerHost(coder, sandbox_factory=slow):
            up = await watch.first(
                lambda e: (
                    isinstance(e.payload, Presence)
                    and e.payload.status == "up"
                    and e.sender.startswith("coder/")
                ),
                unless=run,
            )
            assert runner.entered.is_set() and not runner.release.is_set()  # still starting
            assert up.sender == f"coder/{coder.instance}"
            runner.release.set()
            outcome = await asyncio.wait_for(run, 60)
    # a program that merely ran checks nothing (cross_check is off): the run gives its answer
    # and ends unverified; what this test is about is that the coder was there and waited
    assert outcome.final is not None and outcome.final.status == "unverified"
    assert outcome.final.outputs == {"answer": 42}
    assert runner.executed == 1
    assert runner.closed  # leaving the run closed the sandbox it had started
