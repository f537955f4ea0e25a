"""`society resume`: a ``society run`` whose whole process group (runner, roles) and
nats-server are SIGKILLed at several points is continued from its log — exit 0, the same
answer as an uninterrupted run, every task done once across the whole log, identical on
re-run, and nothing left running."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from bus import Bus, Envelope, runlog
from bus.errors import BusError
from bus.logfile import read_jsonl
from bus.payloads import ExecRequest, Final, Goal, Plan, TaskAssignment, TaskResult
from society.credentials import OWNER, RunAccess, RunCredentials
from tests.containers import containers_left
from tests.durable import ANSWER, durable
from tests.proc import alive

from .humans import Proc

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(420)]

DURABLE = durable("durable", planner_s=3, researcher_s=4, sandbox_s=6, ack_wait_s=3)


Evidence = Callable[[list[Envelope]], bool]


def _has(kind: type, task: str | None = None) -> Evidence:
    return lambda envs: any(
        isinstance(e.payload, kind) and (task is None or e.task_id == task) for e in envs
    )


POINTS: dict[str, Evidence] = {
    # the goal is stored; the planner's call takes 3 s
    "before the plan": lambda envs: _has(Goal)(envs) and not _has(Plan)(envs),
    # both first tasks assigned; the researcher's call takes 4 s
    "mid-tasks": lambda envs: _has(TaskAssignment, "fact")(envs) and not _has(TaskResult)(envs),
    # the square program sleeps 6 s in the sandbox
    "during a sandbox run": _has(ExecRequest, "square"),
    # the final is stored; the log may not be exported yet
    "after the final": _has(Final),
}


async def _log_of(run_dir: Path, run_id: str) -> list[Envelope]:
    """The run's messages so far, read from its own server as its owner."""
    server = json.loads((run_dir / "server.json").read_text())
    connect = RunAccess(server["url"], RunCredentials(run_dir, run_id)).connect(OWNER)
    bus = Bus(connect, name="test-resume")
    await bus.connect()
    try:
        return [r.envelope for r in await runlog.fetch_run(bus, run_id) if r.envelope]
    finally:
        await bus.close()


async def _log_or_nothing(run_dir: Path, run_id: str) -> list[Envelope]:
    """`_log_of`; when the live run's log could not be read this time, nothing — or, once
    the run has ended and its server with it, the log it exported."""
    try:
        return await _log_of(run_dir, run_id)
    except BusError:
        exported = run_dir / "log.jsonl"
        if not exported.is_file():
            return []
        return [r.envelope for r in read_jsonl(exported).records if r.envelope]


async def _kill_when(
    run: Proc, run_dir: Path, run_id: str, evidence: Evidence, *, try_resume: bool = False
) -> None:
    """SIGKILL the run's process group and its nats-server once the log shows ``evidence``
    (with ``try_resume``, first check that a run still running is not resumed)."""
    await run.expect(r"take part: society attach", timeout=180)
    async with asyncio.timeout(180):
        # Polls the log another process writes for the evidence (no event to wait on); a
        # read that a busy live run's server does not finish in time is tried again.
        while not evidence(await _log_or_nothing(run_dir, run_id)):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    if try_resume:
        early = await Proc.start("resume", run_id, "--runs-dir", str(run_dir.parent))
        assert await early.finish(timeout=120) == 2, early.transcript
        assert f"run {run_id} is still running" in early.transcript
    pid = json.loads((run_dir / "server.json").read_text())["pid"]
    with contextlib.suppress(ProcessLookupError):  # a run that ended by itself is gone
        os.killpg(run.proc.pid, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    await run.proc.wait()


def _results(run_dir: Path) -> tuple[Counter[str], list[Final]]:
    read = read_jsonl(run_dir / "log.jsonl")
    assert read.problems == [], read.problems
    payloads = [r.envelope.payload for r in read.records if r.envelope]
    done = Counter(p.task_id for p in payloads if isinstance(p, TaskResult) and p.status == "done")
    return done, [p for p in payloads if isinstance(p, Final)]


@pytest.mark.parametrize("point", list(POINTS))
async def test_a_killed_run_resumes_and_finishes_as_if_never_stopped(
    tmp_path: Path, point: str
) -> None:
    scenario = tmp_path / "durable.yaml"
    scenario.write_text(DURABLE)
    runs, run_id = tmp_path / "runs", f"durable-{time.time_ns()}"
    run_dir = runs / run_id
    where = ("--runs-dir", str(runs))
    run = await Proc.start("run", str(scenario), *where, "--run-id", run_id, session=True)
    try:
        sandbox = point == "during a sandbox run"
        await _kill_when(run, run_dir, run_id, POINTS[point], try_resume=sandbox)
    finally:
        run.stop()
    assert not (run_dir / "log.jsonl").exists() or point == "after the final"

    resumed = await Proc.start("resume", run_id, *where, name="resume")
    try:
        code = await resumed.finish(timeout=300)
    finally:
        resumed.stop()
    assert code == 0, resumed.transcript
    assert "Traceback" not in resumed.transcript
    done, finals = _results(run_dir)
    assert [f.status for f in finals] == ["succeeded"], resumed.transcript
    assert finals[0].answer == ANSWER
    # each task done once, the goal check (added to a plan of several tasks) too
    assert done == {"fact": 1, "square": 1, "combine": 1}, done
    server = json.loads((run_dir / "server.json").read_text())
    assert not alive(server["pid"])
    assert containers_left(run_id) == []

    again = await Proc.start("resume", run_id, *where, name="resume again")
    assert await again.finish(timeout=120) == 0, again.transcript
    assert "had already finished (succeeded)" in again.transcript

    if point == "during a sandbox run":
        rerun = await Proc.start("replay", run_id, *where, "--rerun", "--no-pace", name="rerun")
        assert await rerun.finish(timeout=300) == 0, rerun.transcript
        assert "identical" in rerun.transcript, rerun.transcript
