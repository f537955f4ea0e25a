"""The embedded nats-server: readiness, restart on the same store, no orphans."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bus import Bus, EmbeddedServer, ServerError, runlog
from bus.payloads import Chat

from ..proc import alive, wait_dead

pytestmark = pytest.mark.nats

SOCIETY = [sys.executable, "-m", "society.cli"]


async def test_log_survives_a_restart_on_the_same_folder(tmp_path: Path, run_id: str) -> None:
    server = EmbeddedServer(tmp_path / "js")
    await server.start()
    try:
        async with Bus(server.url, name="w") as bus:
            await runlog.ensure_stream(bus)
            ids = [await bus.send(run_id, "a/0", Chat(text=str(i))) for i in range(5)]
            await bus.flush()
            stored: list[str] = []
            for _ in range(250):  # a plain publish reaches the stream a moment after the flush
                stored = [r.envelope.id for r in await runlog.fetch_run(bus, run_id) if r.envelope]
                if len(stored) >= len(ids):
                    break
                await asyncio.sleep(0.02)
            assert stored == ids
        old_pid = server.pid
        await server.stop()
        assert old_pid is not None and wait_dead(old_pid)
        await server.start()
        async with Bus(server.url, name="r") as bus:
            records = await runlog.fetch_run(bus, run_id)
        assert [r.envelope.id for r in records if r.envelope] == ids
    finally:
        await server.stop()


async def test_start_failure_reports_the_server_log(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path / "js", extra_args=("--no_such_flag",))
    with pytest.raises(ServerError) as info:
        await server.start()
    assert "exited" in str(info.value)
    assert server.pid is None


def start_cli_server(tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [*SOCIETY, "server", "--store", str(tmp_path / "js")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"pid (\d+)", line)
    assert match, f"unexpected output {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"
    return proc, int(match.group(1))


@pytest.mark.timeout(240)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_stops_its_server_on_a_signal(tmp_path: Path, sig: signal.Signals) -> None:
    proc, server_pid = start_cli_server(tmp_path)
    assert alive(server_pid)
    proc.send_signal(sig)
    assert proc.wait(timeout=120) == 130
    assert wait_dead(server_pid, timeout=60), "nats-server outlived the CLI"


@pytest.mark.timeout(240)
def test_server_dies_with_a_killed_parent(tmp_path: Path) -> None:
    proc, server_pid = start_cli_server(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert wait_dead(server_pid, timeout=60), "nats-server orphaned after SIGKILL of its parent"


@pytest.mark.timeout(120)
async def test_queues_fed_waits_until_a_new_servers_queues_are_sourced_from_the_log(
    tmp_path: Path,
) -> None:
    server = EmbeddedServer(tmp_path / "js")
    await server.start()
    try:
        async with Bus(server.url, name="w") as bus:
            await runlog.ensure_stream(bus)
            assert await runlog.queues_fed(bus, timeout=60)
            for queue in runlog.work_queues():
                info = await bus.js.stream_info(runlog.queue_stream(queue))
                assert info.sources
                assert all(s.active is not None and s.active >= 0 for s in info.sources)
    finally:
        await server.stop()
