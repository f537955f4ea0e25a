"""Containers never outlive their pool: close, cancellation, Ctrl-C, a killed host, and gc."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import pytest

import sandbox.sandbox
from sandbox import (
    Sandbox,
    SandboxSettings,
    container_labels,
    gc,
    list_containers,
    remove_containers,
)
from sandbox.labels import OWNER
from tests.containers import wait_removed
from tests.sandbox.conftest import label

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]

HOST_SCRIPT = """
import asyncio, sys
from sandbox import Sandbox, SandboxSettings, list_containers

async def main():
    async with Sandbox(SandboxSettings(pool_size=2, timeout_s=60), label=sys.argv[1]) as sb:
        await sb.wait_idle()
        ids = list_containers(sb._client, pool=sb.pool_id)
        print(' '.join(ids), flush=True)
        await sb.execute('import time; time.sleep(60)')

asyncio.run(main())
"""


@pytest.fixture
def host_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A real process that opens a Sandbox, lists its containers, and runs a long execution."""
    run = label(f"host-{os.urandom(3).hex()}")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, run],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc, run
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=120)


async def test_close_removes_every_container(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> None:
    run = label("close")
    async with Sandbox(settings.model_copy(update={"pool_size": 3}), label=run) as sb:
        await sb.wait_idle()
        assert len(list_containers(docker_client, run=run)) == 3
        running = asyncio.create_task(sb.execute("import time; time.sleep(30)"))
        await sb.execute("print(1)")  # meanwhile the long one took a container of its own
    interrupted = await running  # closing took its container away: a sandbox error, no hang
    assert interrupted.error is not None
    assert list_containers(docker_client, run=run) == []


async def test_close_while_containers_are_starting_removes_them_too(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> None:
    run = label("close-starting")
    async with Sandbox(settings.model_copy(update={"pool_size": 4}), label=run) as sb:
        assert sb.pool_target == 4  # one is ready; the other three are still starting
    assert list_containers(docker_client, run=run) == []


async def test_cancelled_execution_destroys_its_container(
    sandbox: Sandbox, docker_client: docker.DockerClient
) -> None:
    await sandbox.wait_idle()
    before = set(list_containers(docker_client, pool=sandbox.pool_id))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(sandbox.execute("import time; time.sleep(30)"), timeout=1)
    await sandbox.wait_idle()
    after = set(list_containers(docker_client, pool=sandbox.pool_id))
    assert len(after) == sandbox.pool_target  # only the warm ones
    assert len(after - before) == 1  # the one taken was replaced, and is gone
    assert (await sandbox.execute("print('ok')")).stdout == "ok\n"


async def test_unanswered_supervisor_is_killed_by_the_host(
    sandbox: Sandbox, docker_client: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module(), "GRACE_S", -1.5)  # host deadline before the inner one
    result = await sandbox.execute("import time; time.sleep(30)", timeout_s=2)
    assert result.timed_out
    assert result.error is not None and "did not answer" in result.error
    monkeypatch.undo()
    await sandbox.wait_idle()
    assert len(list_containers(docker_client, pool=sandbox.pool_id)) == sandbox.pool_target
    assert (await sandbox.execute("print('ok')")).stdout == "ok\n"


def sandbox_module() -> object:
    return sandbox.sandbox


def test_ctrl_c_cleans_up(
    host_process: tuple[subprocess.Popen[str], str], docker_client: docker.DockerClient
) -> None:
    proc, run = host_process
    assert proc.stdout is not None
    ids = proc.stdout.readline().split()
    assert len(ids) == 2, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    assert list_containers(docker_client, run=run) == []


def test_a_killed_host_leaves_nothing_behind(
    host_process: tuple[subprocess.Popen[str], str], docker_client: docker.DockerClient
) -> None:
    proc, run = host_process
    assert proc.stdout is not None
    ids = proc.stdout.readline().split()
    assert len(ids) == 2, proc.stderr.read() if proc.stderr else ""
    proc.kill()  # no cleanup code runs: the supervisors see stdin close and their containers go
    proc.wait(timeout=120)
    assert wait_removed(docker_client, run) == []


async def test_gc_removes_leftovers_by_label(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> None:
    mine, other = label("gc-mine"), label("gc-other")
    for run in (mine, mine, other):
        docker_client.api.create_container(
            settings.image, command=["true"], labels=container_labels(run, "orphan")
        )
    assert await gc(mine) == 2
    assert list_containers(docker_client, run=mine) == []
    assert len(list_containers(docker_client, run=other)) == 1
    assert await gc(other) == 1
    assert await gc(other) == 0


async def test_a_container_a_killed_process_only_created_goes_with_the_next_sandbox(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> None:
    """A host killed while Docker created a container leaves it never started (so it cannot
    remove itself); the next Sandbox on this machine removes it, and nothing of a live one."""
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await dead.wait()
    run = label("orphans")
    orphan_labels = {**container_labels(run, "dead"), OWNER: f"{socket.gethostname()}:{dead.pid}"}
    orphan = docker_client.api.create_container(settings.image, ["true"], labels=orphan_labels)
    alive = docker_client.api.create_container(
        settings.image, ["true"], labels=container_labels(run, "alive")
    )
    try:
        async with Sandbox(settings.model_copy(update={"pool_size": 1}), label=label("next")):
            pass
        assert list_containers(docker_client, run=run) == [alive["Id"]]
        assert orphan["Id"] not in list_containers(docker_client)
    finally:
        remove_containers(docker_client, run=run)
