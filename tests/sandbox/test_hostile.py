"""Hostile code: each case is contained, reported clearly, and leaves host and pool healthy.

The suite has a Sandbox of its own (a short timeout, its own label); every test ends with a
normal execution on it, and the module ends by checking no container with its label remains.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import docker
import pytest

from sandbox import ExecutionResult, Sandbox, SandboxSettings, list_containers
from tests.sandbox.conftest import label

pytestmark = [pytest.mark.docker, pytest.mark.timeout(60)]

TIMEOUT = 2.0
LABEL = label("hostile")


@pytest.fixture(scope="module")
async def sb(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> AsyncIterator[Sandbox]:
    """The suite's own sandbox; on teardown, no container with its label may remain."""
    async with Sandbox(settings.model_copy(update={"timeout_s": TIMEOUT}), label=LABEL) as sandbox:
        yield sandbox
    assert list_containers(docker_client, run=LABEL) == []


async def run(sb: Sandbox, code: str) -> ExecutionResult:
    """Execute and check the host waited no longer than the timeout plus a little."""
    started = time.monotonic()
    result = await sb.execute(code)
    assert time.monotonic() - started < TIMEOUT + 8, "the sandbox took too long to report"
    assert result.error is None, result.error
    return result


async def assert_healthy(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    """The daemon answers and the pool still runs normal code."""
    assert docker_client.ping()
    result = await sb.execute("print('healthy')")
    assert (result.exit_code, result.stdout) == (0, "healthy\n")


async def test_fork_bomb(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    result = await run(
        sb,
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    )
    assert result.timed_out
    assert result.exit_code is None
    await assert_healthy(sb, docker_client)


async def test_pids_limit_stops_forking(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    code = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(60)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print(n, exc.errno)\n"
    )
    result = await run(sb, code)
    forked, errno = map(int, result.stdout.split())
    assert 0 < forked < sb.settings.pids
    assert errno == 11  # EAGAIN from the pids cgroup
    assert result.exit_code == 0  # the sleeping children were killed, not waited for
    await assert_healthy(sb, docker_client)


async def test_memory_bomb(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    result = await run(sb, "hog = []\nwhile True:\n    hog.append(bytearray(10_000_000))\n")
    assert result.oom_killed
    assert result.exit_code == -9
    assert not result.timed_out
    await assert_healthy(sb, docker_client)


async def test_infinite_loop(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    result = await run(sb, "while True:\n    pass\n")
    assert result.timed_out
    assert TIMEOUT <= result.wall_s < TIMEOUT + 1
    await assert_healthy(sb, docker_client)


async def test_sleep_past_the_timeout(sb: Sandbox, docker_client: docker.DockerClient) -> None:
    result = await run(sb, "import time\ntime.sleep(3600)\n")
    assert result.timed_out
    assert result.exit_code is None
    await assert_healthy(sb, docker_client)


async def test_ignoring_sigterm_and_hiding_in_a_new_session(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    code = (
        "import os, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"  # out of the child's process group: killpg alone would miss it
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "    while True:\n"
        "        time.sleep(1)\n"
        "print('ignoring SIGTERM', flush=True)\n"
        "while True:\n"
        "    time.sleep(1)\n"
    )
    result = await run(sb, code)
    assert result.timed_out
    assert result.stdout == "ignoring SIGTERM\n"
    await assert_healthy(sb, docker_client)


def host_addresses() -> list[str]:
    """This host's own addresses as seen from outside a container."""
    found = {"172.17.0.1", "10.0.0.1"}
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks a route
        found.add(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    return sorted(found)


async def test_no_network_outside_or_to_the_host(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    accepted: list[str] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(str(writer.get_extra_info("peername")))
        writer.close()

    server = await asyncio.start_server(on_connect, "0.0.0.0", 0)
    port = server.sockets[0].getsockname()[1]
    targets = [("1.1.1.1", 53), ("8.8.8.8", 443), ("127.0.0.1", port)]
    targets += [(address, port) for address in host_addresses()]
    code = (
        "import socket\n"
        f"for target in {targets!r}:\n"
        "    s = socket.socket()\n"
        "    s.settimeout(3)\n"
        "    try:\n"
        "        s.connect(tuple(target))\n"
        "        print(target[0], 'CONNECTED')\n"
        "    except OSError as exc:\n"
        "        print(target[0], type(exc).__name__, exc.errno)\n"
        "try:\n"
        "    socket.getaddrinfo('example.com', 80)\n"
        "    print('dns RESOLVED')\n"
        "except OSError as exc:\n"
        "    print('dns', type(exc).__name__)\n"
    )
    try:
        result = await run(sb, code)
    finally:
        server.close()
        await server.wait_closed()
    assert result.exit_code == 0, result.stderr
    assert "CONNECTED" not in result.stdout
    assert "RESOLVED" not in result.stdout
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["127.0.0.1"].startswith("ConnectionRefusedError")  # its own loopback only
    assert lines["1.1.1.1"].startswith("OSError 101")  # ENETUNREACH
    assert accepted == []
    await assert_healthy(sb, docker_client)


async def test_no_writes_outside_the_work_dir(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    name = f"society-{uuid.uuid4().hex}"
    paths = [f"/etc/{name}", f"/usr/{name}", f"/{name}", f"/usr/bin/{name}", "/proc/sys/kernel/x"]
    code = (
        "import errno, os\n"
        "attempts = [lambda p=p: open(p, 'w').write('x') for p in "
        f"{paths!r}]\n"
        "attempts += [lambda: os.setuid(0), lambda: os.chmod('/etc/passwd', 0o777)]\n"
        "for attempt in attempts:\n"
        "    try:\n"
        "        attempt()\n"
        "        print('DONE')\n"
        "    except OSError as exc:\n"
        "        print(errno.errorcode[exc.errno])\n"
    )
    result = await run(sb, code)
    assert result.stdout.split() == ["EROFS"] * 4 + ["ENOENT", "EPERM", "EROFS"]
    assert not any(os.path.exists(path) for path in paths)  # noqa: ASYNC240
    await assert_healthy(sb, docker_client)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file on the host that the code must not see."""
    path = tmp_path / "secret.txt"
    path.write_text("host secret")
    return path


async def test_host_files_are_not_visible(
    sb: Sandbox, docker_client: docker.DockerClient, secret: Path
) -> None:
    tmp_path = secret.parent
    code = (
        "import os\n"
        f"print(os.path.exists({str(secret)!r}), os.path.exists({str(tmp_path)!r}))\n"
        "print(open('/proc/1/cmdline').read().split('\\0')[:3])\n"
        "print(open('/etc/hostname').read().strip())\n"
        "try:\n"
        "    open('/etc/shadow').read()\n"
        "    print('shadow READ')\n"
        "except OSError as exc:\n"
        "    print('shadow', type(exc).__name__)\n"
        "try:\n"
        "    os.listdir('/proc/1/fd')\n"  # the supervisor is not dumpable: its fds are closed to us
        "    print('fds LISTED')\n"
        "except OSError as exc:\n"
        "    print('fds', type(exc).__name__)\n"
    )
    result = await run(sb, code)
    assert result.stdout.splitlines() == [
        "False False",
        "['python3', '-I', '-u']",
        "sandbox",
        "shadow PermissionError",
        "fds PermissionError",
    ]
    await assert_healthy(sb, docker_client)


async def test_the_code_cannot_kill_or_impersonate_the_supervisor(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    code = (
        "import os, signal\n"
        "for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP):\n"
        "    os.kill(1, sig)\n"
        "try:\n"
        "    open('/proc/1/fd/1', 'wb').write(b'forged')\n"
        "except OSError as exc:\n"
        "    print(type(exc).__name__)\n"
        "print('still answered')\n"
    )
    result = await run(sb, code)
    assert result.stdout == "PermissionError\nstill answered\n"
    await assert_healthy(sb, docker_client)


async def test_100_mb_of_output_is_capped_and_prompt(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    code = (
        "import sys\n"
        "print('first line')\n"
        "for _ in range(100):\n"
        "    sys.stdout.write('x' * 1_000_000)\n"
        "print('last line')\n"
        "sys.stderr.write('e' * 5_000_000)\n"
    )
    started = time.monotonic()
    result = await run(sb, code)
    assert time.monotonic() - started < 10
    assert result.exit_code == 0
    assert result.stdout_truncated and result.stderr_truncated
    cap = sb.settings.max_output_bytes
    assert len(result.stdout) < cap + 200
    assert result.stdout.startswith("first line\n")
    assert result.stdout.endswith("last line\n")
    assert "bytes cut by the sandbox" in result.stdout
    await assert_healthy(sb, docker_client)


async def test_a_file_over_the_cap_is_dropped(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    code = (
        "open('small.txt', 'w').write('kept')\n"
        "try:\n"
        "    open('big.bin', 'wb').write(b'x' * 10_000_000)\n"
        "except OSError as exc:\n"
        "    print(exc.strerror)\n"
    )
    result = await run(sb, code)
    assert result.stdout == "File too large\n"
    assert result.files == {"small.txt": b"kept"}
    assert result.files_dropped == ["big.bin"]
    await assert_healthy(sb, docker_client)


async def test_total_file_cap_and_a_full_work_dir(
    sb: Sandbox, docker_client: docker.DockerClient
) -> None:
    code = (
        "for i in range(5):\n"
        "    open(f'part{i}', 'wb').write(b'x' * 4_500_000)\n"
        "try:\n"
        "    for i in range(100):\n"
        "        open(f'/tmp/fill{i}', 'wb').write(b'x' * 4_000_000)\n"
        "except OSError as exc:\n"
        "    print(exc.strerror)\n"
    )
    result = await run(sb, code)
    assert result.stdout == "No space left on device\n"
    assert sorted(result.files) == ["part0", "part1", "part2", "part3"]  # 18 MB of 20 MB
    assert result.files_dropped == ["part4"]
    await assert_healthy(sb, docker_client)
