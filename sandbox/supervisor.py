"""The supervisor: PID 1 of every sandbox container, serving exactly one execution.

Its modules (this one, ``supervisor_wire`` and ``supervisor_files``) use the standard library
only and must run on the image's python3 (3.9 or newer); ``sandbox.container`` passes all
three as one ``python3 -I -u -c <program> <config json>`` (so no host mount is needed). The
host talks to it over the container's attached stdin/stdout with the messages of
``sandbox.protocol``:

1. At start it primes a child ``python3`` (interpreter started, limits applied, own session,
   ``oom_score_adj`` 1000) that waits for the code on a pipe, and sends ``ready`` once that
   interpreter is up: a request then starts running within about a millisecond.
2. It reads ``file`` messages (written into the work dir) and one ``run`` message (the code).
3. It hands the code to the primed child, captures stdout/stderr (head and tail kept, the
   middle cut past the cap), and kills the child's process group at the timeout.
4. It kills every other process in the container (``kill(-1)`` from PID 1 spares only
   itself), reaps them, reads the OOM counter, streams the files the code wrote (size-capped)
   as ``file`` messages and ends with one ``result`` message; then it exits once the host
   closes stdin (the host picks a quiet moment for Docker's teardown). The result's
   ``notes`` say what the code may not have: the memory limit was reached, a tmpfs is full
   or out of inodes, files were dropped (and why).

When the host goes away (stdin EOF) it kills everything and exits, so the container stops.
Being PID 1 of its own PID namespace, it cannot be killed by the code (the kernel drops
signals to init that it has no handler for), and it makes itself non-dumpable so the code,
running as the same user, can neither ptrace it nor open its ``/proc/1/fd`` to forge
messages.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import signal
import sys
import time
from typing import Any

from sandbox.supervisor_files import safe_name, send_outputs, tmpfs_notes, tmpfs_used, write_input
from sandbox.supervisor_wire import CHUNK, Capture, receive, send, write_all

__all__ = ["STUB", "Capture", "Child", "execute", "main", "receive", "safe_name", "send", "serve"]

STUB = r"""
def _run():
    import linecache, os, resource, sys, traceback
    fsize, nofile = int(sys.argv[1]), int(sys.argv[2])
    for limit, value in ((resource.RLIMIT_FSIZE, fsize), (resource.RLIMIT_NOFILE, nofile),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))
    with open("/proc/self/oom_score_adj", "w") as adj:
        adj.write("1000")
    os.write(3, b"primed")
    os.close(3)
    chunks = []
    while chunk := os.read(0, 65536):
        chunks.append(chunk)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    code = b"".join(chunks).decode("utf-8", "replace")
    linecache.cache["main.py"] = (len(code), None, code.splitlines(True), "main.py")
    sys.argv = ["main.py"]
    namespace = sys.modules["__main__"].__dict__
    keep = ("__name__", "__doc__", "__package__", "__loader__", "__spec__", "__builtins__")
    saved = {key: namespace[key] for key in keep if key in namespace}
    namespace.clear()
    namespace.update(saved)
    del chunks, saved, null, adj
    try:
        exec(compile(code, "main.py", "exec"), namespace)
    except SystemExit:
        raise
    except BaseException as exc:
        tb = exc.__traceback__
        exc = exc.with_traceback(tb.tb_next if tb is not None else None)  # not the stub's frame
        if sys.excepthook is sys.__excepthook__:  # the C hook reads no linecache: no source
            traceback.print_exception(exc)
        else:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        sys.exit(1)
_run()
"""
"""The primed child's program: apply limits, wait for the code, run it as ``__main__``."""


# --- processes ------------------------------------------------------------------------------


class Child:
    """The primed python3 child: started at once, released with the code later."""

    def __init__(self, config: dict[str, Any]) -> None:
        code_r, self.code_w = os.pipe()
        self.out_r, out_w = os.pipe()
        self.err_r, err_w = os.pipe()
        primed_r, primed_w = os.pipe()
        env = dict(os.environ)
        env.update(
            HOME="/tmp",
            TMPDIR="/tmp",
            LANG="C.UTF-8",
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONUNBUFFERED="1",
        )
        argv = [sys.executable, "-u", "-c", STUB, str(config["fsize"]), str(config["nofile"])]
        self.pid = os.posix_spawn(
            sys.executable,
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, code_r, 0),
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
                (os.POSIX_SPAWN_DUP2, primed_w, 3),
            ],
            setsid=True,
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT),
        )
        for fd in (code_r, out_w, err_w, primed_w):
            os.close(fd)
        self.status: int | None = None
        os.read(primed_r, 16)  # wait until the interpreter is up (EOF if it died)
        os.close(primed_r)

    def release(self, code: bytes) -> None:
        """Hand the code to the waiting interpreter (it runs once the pipe closes)."""
        try:
            write_all(self.code_w, code)
        except BrokenPipeError:
            pass  # the child died while primed; its exit status tells the story
        finally:
            os.close(self.code_w)


def kill_everything(child: Child) -> None:
    """SIGKILL every process but this one (PID 1) and reap them all, recording the child's."""
    if os.getpid() != 1:  # kill(-1) outside a container would hit every process of the user
        msg = "the supervisor only kills everything as PID 1 of a container"
        raise RuntimeError(msg)
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if pid == child.pid and child.status is None:
                child.status = status


def oom_kills() -> int | None:
    """The container's OOM-kill counter (cgroup v1 or v2), or None where neither is readable."""
    for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events"):
        try:
            with open(path) as source:
                for line in source:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except OSError:
            continue
    return None


# --- one execution ---------------------------------------------------------------------------


def execute(child: Child, code: bytes, timeout_s: float, config: dict[str, Any]) -> dict[str, Any]:
    """Run the code in the primed child; return the result fields (files are sent separately)."""
    out, err = Capture(config["max_output"]), Capture(config["max_output"])
    streams = {child.out_r: out, child.err_r: err}
    try:
        pidfd: int | None = os.pidfd_open(child.pid)
    except (AttributeError, OSError):
        pidfd = None  # kernels before 5.3: fall back to a short poll tick
    poller = select.poll()
    for fd in (*streams, 0, *([pidfd] if pidfd is not None else [])):
        poller.register(fd, select.POLLIN)
    start = time.monotonic()
    deadline = start + timeout_s
    child.release(code)
    timed_out = False
    while child.status is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            break
        tick = remaining if pidfd is not None else min(remaining, 0.05)
        for fd, _ in poller.poll(tick * 1000):
            if fd in streams:
                data = os.read(fd, CHUNK)
                if data:
                    streams[fd].feed(data)
                else:
                    poller.unregister(fd)
            elif fd == 0 and not os.read(0, CHUNK):
                kill_everything(child)
                sys.exit(0)  # the host went away: nobody wants the result
        pid, status = os.waitpid(child.pid, os.WNOHANG)
        if pid:
            child.status = status
    wall_s = time.monotonic() - start
    kill_everything(child)
    for fd, capture in streams.items():
        while data := os.read(fd, CHUNK):
            capture.feed(data)
    stdout, stdout_cut = out.text()
    stderr, stderr_cut = err.text()
    exit_code = None
    if child.status is not None and not timed_out:
        exit_code = os.waitstatus_to_exitcode(child.status)
    oom_after = oom_kills()
    return {
        "kind": "result",
        "exit_code": exit_code,
        "stdout": stdout,
        "stderr": stderr,
        "stdout_truncated": stdout_cut,
        "stderr_truncated": stderr_cut,
        "wall_s": wall_s,
        "timed_out": timed_out,
        "oom_killed": bool(oom_after and oom_after > config["oom_before"]),
    }


def serve(config: dict[str, Any]) -> int:
    """Prime, report ready, take one request, run it, answer, exit when the host lets go."""
    workdir: str = config["workdir"]
    os.chdir(workdir)
    config["oom_before"] = oom_kills() or 0
    child = Child(config)
    send({"kind": "ready", "pid": os.getpid(), "python": sys.version.split()[0]})
    inputs: dict[str, str] = {}
    while True:
        message = receive(config["max_input"])
        if message is None:
            kill_everything(child)
            return 0
        head, blob = message
        if head["kind"] == "file":
            write_input(workdir, head["name"], int(head.get("mode", 0o644)), blob)
            inputs[head["name"]] = hashlib.sha256(blob).hexdigest()
        elif head["kind"] == "run":
            break
        else:
            msg = f"unexpected message kind {head['kind']!r}"
            raise ValueError(msg)
    result = execute(child, blob, float(head["timeout_s"]), config)
    notes = [oom_note(config)] if result["oom_killed"] else []
    notes += tmpfs_notes(config["tmpfs"])
    try:
        dropped = send_outputs(workdir, inputs, config)
    except Exception as exc:  # the answer matters more than the files: report and go on
        notes.append(f"the sandbox could not collect the files: {type(exc).__name__}: {exc}")
        result["files_dropped"] = []
    else:
        result["files_dropped"] = dropped.names
        notes += dropped.notes(config)
    result["notes"] = notes
    send(result)
    linger()
    return 0


def linger() -> None:
    """Exit only once the host closes stdin: it lets go of a used container at a quiet moment,
    and Docker tearing one down takes real CPU that executions under way would share."""
    while os.read(0, CHUNK):
        pass


def oom_note(config: dict[str, Any]) -> str:
    """Says the memory limit was reached, and how much of it files in the tmpfs mounts held."""
    note = (
        f"the container reached its memory limit of {config['memory_mb']} MB "
        "(sandbox.memory_mb) and the kernel killed a process of the program"
    )
    held = tmpfs_used(config["tmpfs"]) >> 20
    if held:
        note += f"; files in {', '.join(config['tmpfs'])} count against it and held {held} MB"
    return note


def harden_self() -> None:
    """Make this process non-dumpable and immune to the code's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1 without a handler ignores it
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError, ImportError):
        pass


def main(argv: list[str]) -> int:
    """Entry point inside the container: ``argv[1]`` is the JSON config."""
    if os.getpid() != 1:
        sys.stderr.write("the sandbox supervisor runs only as PID 1 of a container\n")
        return 2
    harden_self()
    try:
        return serve(json.loads(argv[1]))
    except Exception as exc:
        try:
            send({"kind": "error", "message": f"{type(exc).__name__}: {exc}"})
        finally:
            raise


if __name__ == "__main__":
    sys.exit(main(sys.argv))
