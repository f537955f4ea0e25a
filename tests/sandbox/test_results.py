"""Results that cannot hurt: whatever the code leaves behind, its answer gets out, and
what went wrong is named (a name that is not UTF-8, control characters in a name, a full
tmpfs, the inodes or the memory used up) instead of "the sandbox failed".

Most cases run on the shared sandbox (the default limits); the red team's configuration,
which the settings now refuse, is built with ``model_construct`` to show what the host
reports when the container's memory runs out all the same.
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import docker
import pytest
from rich.console import Console

from bus import Envelope
from bus.payloads import Artifact, Final, TaskResult
from roles.execution import to_payload
from sandbox import ExecutionResult, Sandbox, SandboxSettings, list_containers
from society.view.describe import describe
from society.view.live import LiveView, render_summary
from society.view.progress import RunState
from tests.sandbox.conftest import label

pytestmark = [pytest.mark.docker, pytest.mark.timeout(180)]

RAW_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""A control character, as a terminal would obey it."""


def assert_no_controls(*texts: str) -> None:
    """None of ``texts`` holds a raw control character (newline included)."""
    for text in texts:
        assert not RAW_CONTROL.search(text), f"raw control character in {text!r}"


async def test_a_name_that_is_not_utf8_is_dropped_with_a_note_and_the_rest_is_kept(
    sandbox: Sandbox,
) -> None:
    code = (
        "import os, sys\n"
        "open(b'bad\\xff.txt', 'wb').write(b'lost')\n"
        "os.mkdir(b'dir\\xfe')\n"
        "open(b'dir\\xfe/inner.txt', 'wb').write(b'lost too')\n"
        "open('good.txt', 'w').write('kept')\n"
        "print('stdout kept')\n"
        "sys.exit(3)\n"
    )
    result = await sandbox.execute(code)
    assert result.error is None, result.error
    assert (result.exit_code, result.stdout) == (3, "stdout kept\n")
    assert result.files == {"good.txt": b"kept"}
    assert result.files_dropped == ["bad\\xff.txt", "dir\\xfe/inner.txt"]
    assert result.notes == [
        "2 file(s) not returned: their names are not valid UTF-8: "
        "'bad\\xff.txt', 'dir\\xfe/inner.txt'"
    ]


HOSTILE_NAMES = {
    "clear\x1b[2J\x1b[3J.txt": "clear\\x1b[2J\\x1b[3J.txt",
    "title\x1b]0;pwned\x07.txt": "title\\x1b]0;pwned\\x07.txt",
    "two\nlines.txt": "two\\nlines.txt",
    "c1\x9b31m.txt": "c1\\x9b31m.txt",
    "cr\rback\x08del\x7f.txt": "cr\\rback\\x08del\\x7f.txt",
}
"""Names the code writes, and how the result shows them."""

HOSTILE = (
    "import sys\n"
    f"for name in {list(HOSTILE_NAMES)!r}:\n"
    "    open(name, 'w').write('x')\n"
    "open('ok.txt', 'w').write('fine')\n"
    "print('\\x1b[2Jcleared?')\n"
    "raise SystemExit('\\x1b]0;title\\x07 \\x1b[31mred\\x1b[0m')\n"
)
"""Writes the hostile names, prints an escape and fails with one on stderr's last line."""


async def test_names_with_escapes_or_newlines_are_dropped_and_shown_escaped(
    sandbox: Sandbox,
) -> None:
    result = await sandbox.execute(HOSTILE)
    assert result.error is None, result.error
    assert result.exit_code == 1
    assert result.stdout == "\x1b[2Jcleared?\n"  # the program's own output, kept as it is
    assert result.files == {"ok.txt": b"fine"}
    assert sorted(result.files_dropped) == sorted(HOSTILE_NAMES.values())
    assert len(result.notes) == 1
    assert result.notes[0].startswith(
        "5 file(s) not returned: their names hold control characters (such as an escape or "
        "a newline): "
    )
    assert_no_controls(*result.files, *result.files_dropped, *result.notes)


async def test_what_a_person_sees_of_a_hostile_run_holds_no_raw_control(
    sandbox: Sandbox,
) -> None:
    result = await sandbox.execute(HOSTILE)
    run_id = "hostile"
    envelopes = [
        Envelope.new(run_id, "coder/1", to_payload(result), task_id="t1"),
        Envelope.new(
            run_id,
            "coder/1",
            TaskResult(task_id="t1", role="coder", status="failed", error=result.stderr),
            task_id="t1",
        ),
        Envelope.new(
            run_id,
            "manager/0",
            Final(
                status="failed",
                answer=result.stdout,
                reason=result.stderr,
                artifacts=[
                    Artifact(name=name, path=f"artifacts/t1/{name}", size=1, sha256="0" * 64)
                    for name in [*result.files, *HOSTILE_NAMES]
                ],
            ),
        ),
    ]
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, color_system=None, width=200)
    state = RunState(run_id)
    with LiveView(console, state) as view:
        for env in envelopes:
            view.update(env)
    render_summary(console, state, Path("runs/hostile"), None)
    printed = out.getvalue()
    assert "\\x1b[2Jcleared?" in printed  # the answer is shown, its escape made visible
    assert "\\x1b[31mred" in printed
    assert_no_controls(*printed.split("\n"))
    for env in envelopes:
        said = describe(env.payload, env)
        assert_no_controls(said.summary, *(said.lines or []), said.event or "")


async def test_full_tmpfs_mounts_are_named(sandbox: Sandbox) -> None:
    code = (
        "for d in ('/work', '/tmp', '/dev/shm'):\n"
        "    try:\n"
        "        for i in range(1000):\n"
        "            open(f'{d}/fill{i}', 'wb').write(b'x' * 4_000_000)\n"
        "    except OSError as exc:\n"
        "        print(d, exc.strerror)\n"
    )
    result = await sandbox.execute(code)
    assert result.error is None, result.error
    assert (result.exit_code, result.oom_killed) == (0, False)
    assert result.stdout.splitlines() == [
        f"{d} No space left on device" for d in ("/work", "/tmp", "/dev/shm")
    ]
    mb = sandbox.settings.workdir_mb
    for d in ("/work", "/tmp", "/dev/shm"):
        assert f"{d} is full: its {mb} MB are used (sandbox.workdir_mb)" in "\n".join(result.notes)


async def test_200000_files_run_into_the_inode_limit_and_say_so(sandbox: Sandbox) -> None:
    code = (
        "import os\n"
        "print('starting', flush=True)\n"
        "os.mkdir('many')\n"
        "for i in range(200_000):\n"
        "    open(f'many/{i}', 'w').close()\n"
    )
    result = await sandbox.execute(code)
    assert result.error is None, result.error
    assert result.exit_code == 1
    assert result.stdout == "starting\n"
    assert "OSError: [Errno 28] No space left on device" in result.stderr
    inodes = sandbox.settings.tmpfs_inodes
    assert result.notes[0] == (
        f"/work ran out of inodes: it holds at most {inodes:,} files and directories "
        "(sandbox.tmpfs_inodes), so creating more fails with 'No space left on device'"
    )
    returned = sandbox.settings.max_files
    assert len(result.files) == returned
    assert len(result.files_dropped) == 100  # listed up to a cap; the note counts them all
    assert f"not returned: only {returned:,} files are returned" in result.notes[1]


@pytest.fixture
async def red_team(docker_client: docker.DockerClient) -> AsyncIterator[Sandbox]:
    """A sandbox whose tmpfs mounts can hold more than its memory (settings now refuse it)."""
    name = label("red-team")
    settings = SandboxSettings.model_construct(
        memory_mb=128, tmpfs_inodes=1_000_000, pool_size=1, timeout_s=60
    )
    async with Sandbox(settings, label=name) as sandbox:
        yield sandbox
    assert list_containers(docker_client, run=name) == []


async def test_tmpfs_filled_past_the_memory_limit_is_named_out_of_memory(
    red_team: Sandbox,
) -> None:
    code = (
        "for d in ('/tmp', '/dev/shm'):\n"  # 2 × 64 MB of files in 128 MB of memory
        "    try:\n"
        "        for i in range(1000):\n"
        "            open(f'{d}/fill{i}', 'wb').write(b'x' * 4_000_000)\n"
        "    except OSError as exc:\n"
        "        print(d, exc.strerror, flush=True)\n"
    )
    result = await red_team.execute(code)
    assert result.error is None, result.error
    assert result.oom_killed
    assert result.exit_code == -9
    assert result.stdout == "/tmp No space left on device\n"  # kept, though the code died
    assert result.notes[0].startswith(
        "the container reached its memory limit of 128 MB (sandbox.memory_mb) and the kernel "
        "killed a process of the program; files in /work, /tmp, /dev/shm count against it"
    )
    assert "/tmp is full" in result.notes[1]


async def test_a_supervisor_killed_by_the_memory_limit_is_named_out_of_memory(
    red_team: Sandbox,
) -> None:
    code = (
        "import os\n"
        "os.mkdir('many')\n"
        "for i in range(200_000):\n"
        "    open(f'many/{i}', 'w').close()\n"
    )
    result: ExecutionResult = await red_team.execute(code)
    assert result.oom_killed
    if result.error is not None:  # the supervisor was killed too: Docker's record says why
        assert result.error.startswith("the container ran out of memory (memory_mb=128;")
    else:  # it survived, freeing what the code held: its own notes say why
        assert result.notes[0].startswith("the container reached its memory limit of 128 MB")
