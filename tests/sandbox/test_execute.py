"""Normal execution through the shared warm sandbox: output, exit codes, files in and out."""

from __future__ import annotations

import asyncio

import pytest

from sandbox import Sandbox, SandboxClosed, SandboxInputError, SandboxSettings, SandboxState

pytestmark = [pytest.mark.docker, pytest.mark.timeout(60)]


async def test_prints_and_exits_zero(sandbox: Sandbox) -> None:
    result = await sandbox.execute("print(1 + 1)")
    assert result.ok
    assert (result.exit_code, result.stdout, result.stderr) == (0, "2\n", "")
    assert result.error is None
    assert not (result.timed_out or result.oom_killed or result.stdout_truncated)
    assert 0 < result.wall_s < 5


async def test_exit_code_and_traceback_point_at_the_code(sandbox: Sandbox) -> None:
    result = await sandbox.execute("import sys\nprint('before')\n\n1 / 0\n")
    assert result.exit_code == 1
    assert result.stdout == "before\n"
    assert 'File "main.py", line 4, in <module>' in result.stderr
    assert "1 / 0" in result.stderr
    assert "ZeroDivisionError" in result.stderr
    assert "_run" not in result.stderr  # the supervisor's own frames are hidden


async def test_sys_exit_and_syntax_errors(sandbox: Sandbox) -> None:
    exited, broken = await asyncio.gather(
        sandbox.execute("import sys; sys.exit(3)"), sandbox.execute("def f(:\n")
    )
    assert exited.exit_code == 3
    assert broken.exit_code == 1
    assert "SyntaxError" in broken.stderr
    assert 'File "main.py", line 1' in broken.stderr


async def test_runs_as_main_in_the_work_dir_with_unicode(sandbox: Sandbox) -> None:
    code = (
        "import os, sys\n"
        "print(__name__, os.getcwd(), os.getuid(), sys.argv)\n"
        "print('héllo ✓')\n"
        "print('to stderr', file=sys.stderr)\n"
    )
    result = await sandbox.execute(code)
    assert result.stdout == "__main__ /work 65534 ['main.py']\nhéllo ✓\n"
    assert result.stderr == "to stderr\n"


async def test_files_in_and_out(sandbox: Sandbox) -> None:
    code = (
        "import json, os\n"
        "rows = open('data/in.csv').read().split()\n"
        "json.dump({'n': len(rows)}, open('outputs.json', 'w'))\n"
        "os.makedirs('plots', exist_ok=True)\n"
        "open('plots/p.bin', 'wb').write(bytes(range(256)))\n"
        "open('data/in.csv', 'a').write('4\\n')\n"
        "open('/tmp/scratch', 'w').write('not returned')\n"
    )
    files = {"data/in.csv": b"1\n2\n3\n", "untouched.txt": b"same"}
    result = await sandbox.execute(code, files=files)
    assert result.ok, result.stderr
    assert result.files == {
        "data/in.csv": b"1\n2\n3\n4\n",  # changed inputs come back
        "outputs.json": b'{"n": 3}',
        "plots/p.bin": bytes(range(256)),
    }
    assert result.files_dropped == []


async def test_input_modules_can_be_imported(sandbox: Sandbox) -> None:
    files = {"helper.py": b"def double(x):\n    return 2 * x\n"}
    result = await sandbox.execute("from helper import double\nprint(double(21))", files=files)
    assert result.stdout == "42\n", result.stderr


async def test_stdout_is_kept_when_the_code_is_killed(sandbox: Sandbox) -> None:
    result = await sandbox.execute("import time\nprint('step 1')\ntime.sleep(30)", timeout_s=1)
    assert result.timed_out
    assert result.exit_code is None
    assert result.stdout == "step 1\n"
    assert result.error is None


async def test_bad_input_raises_before_any_container_is_used(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxInputError):
        await sandbox.execute("print(1)", files={"../escape": b"x"})
    with pytest.raises(SandboxInputError):
        await sandbox.execute("x" * 30_000_000)


async def test_closed_sandbox_refuses(settings: SandboxSettings) -> None:
    sb = Sandbox(settings.model_copy(update={"pool_size": 0}), label="pytest-closed")
    with pytest.raises(SandboxClosed, match="new"):
        await sb.execute("print(1)")
    await sb.close()
    assert sb.state is SandboxState.CLOSED
    with pytest.raises(SandboxClosed):
        await sb.execute("print(1)")
