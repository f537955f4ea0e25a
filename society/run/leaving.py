"""Leaving the process at the end of a command without the interpreter's teardown.

Freeing every loaded module at exit (AutoGen, pydantic, the docker SDK…) takes 0.15–0.2 s
after the command has finished. `leave` does what matters of that teardown — waits for
non-daemon threads, runs the atexit handlers (logging's flush among them), flushes the
standard streams — and then ends the process with ``os._exit``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

__all__ = ["exit_status", "leave"]


def exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` would end with (printing a non-integer code, as it does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def leave(code: object) -> NoReturn:
    """End the process with ``sys.exit(code)``'s status, skipping the module teardown."""
    status = exit_status(code)
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(status)
