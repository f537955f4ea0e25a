"""Leaving without the interpreter's teardown still does what teardown owes the user."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from society.run.leaving import exit_status


def _leave(body: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        """
        import atexit, logging, sys, threading
        from society.run.leaving import leave
        """
    ) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.timeout(90)
def test_leave_runs_atexit_handlers_flushes_streams_and_keeps_the_status() -> None:
    proc = _leave(
        """
        atexit.register(lambda: print("atexit ran"))
        sys.stdout.write("unflushed ")
        leave(3)
        """
    )
    assert proc.returncode == 3
    assert proc.stdout == "unflushed atexit ran\n"


@pytest.mark.timeout(90)
def test_leave_waits_for_non_daemon_threads_and_flushes_logging() -> None:
    proc = _leave(
        """
        import time
        logging.basicConfig(stream=sys.stderr)
        done = []
        def work():
            time.sleep(0.3)
            done.append(1)
        threading.Thread(target=work).start()
        atexit.register(lambda: print("threads done:", len(done)))
        logging.getLogger("t").warning("logged")
        leave(None)
        """
    )
    assert proc.returncode == 0
    assert proc.stdout == "threads done: 1\n"
    assert "logged" in proc.stderr


def test_exit_status_follows_sys_exit(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_status(None) == 0
    assert exit_status(2) == 2
    assert exit_status("bad thing") == 1
    assert capsys.readouterr().err == "bad thing\n"
