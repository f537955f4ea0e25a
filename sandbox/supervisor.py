"""The supervisor: PID 1 of every sandbox container, serving exactly one execution.

This file is shipped as a resource and run inside the container as
``python3 -I -u -c <this source> <config json>`` (so no host mount is needed); it uses the
standard library only and must run on the image's python3 (3.9 or newer). The host talks to
it over the container's attached stdin/stdout with the messages of ``sandbox.protocol``:

1. At start it primes a child ``python3`` (interpreter started, limits applied, own session,
   ``oom_score_adj`` 1000) that waits for the code on a pipe, and sends ``ready`` once that
   interpreter is up: a request then starts running within about a millisecond.
2. It reads ``file`` messages (written into the work dir) and one ``run`` message (the code).
3. It hands the code to the primed child, captures stdout/stderr (head and tail kept, the
   middle cut past the cap), and kills the child's process group at the timeout.
4. It kills every other process in the container (``kill(-1)`` from PID 1 spares only
   itself), reaps them, reads the OOM counter, streams the files the code wrote (size-capped)
   as ``file`` messages and ends with one ``result`` message; then it exits.

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
import stat
import struct
import sys
import time
from typing import Any

PREFIX = struct.Struct(">II")
"""Each message: header length, blob length (big-endian u32), JSON header, raw blob."""

CHUNK = 1 << 16
TAIL_SHARE = 4
"""A capped stream keeps its first 3/4 and last 1/4 (tracebacks are at the end)."""

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


# --- messages ---------------------------------------------------------------------------------


def send(head: dict[str, Any], blob: bytes = b"", fd: int = 1) -> None:
    """Write one message (to stdout unless told otherwise)."""
    raw = json.dumps(head, ensure_ascii=False).encode()
    write_all(fd, PREFIX.pack(len(raw), len(blob)) + raw)
    if blob:
        write_all(fd, blob)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_exactly(fd: int, size: int) -> bytes | None:
    """Read ``size`` bytes from ``fd``; None on EOF before the end."""
    parts: list[bytes] = []
    left = size
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def receive(max_blob: int, fd: int = 0) -> tuple[dict[str, Any], bytes] | None:
    """Read one message (from stdin unless told otherwise); None when the host has gone."""
    prefix = read_exactly(fd, PREFIX.size)
    if prefix is None:
        return None
    head_len, blob_len = PREFIX.unpack(prefix)
    if head_len > max_blob + (1 << 20) or blob_len > max_blob:
        msg = f"message too large ({head_len} + {blob_len} bytes)"
        raise ValueError(msg)
    raw = read_exactly(fd, head_len)
    blob = read_exactly(fd, blob_len)
    if raw is None or blob is None:
        return None
    head: dict[str, Any] = json.loads(raw)
    return head, blob


# --- output capture -----------------------------------------------------------------------------


class Capture:
    """Keeps the head and the tail of a stream within ``cap`` bytes, counting the rest."""

    def __init__(self, cap: int) -> None:
        self.tail_cap = cap // TAIL_SHARE
        self.head_cap = cap - self.tail_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Take the next chunk of the stream."""
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.tail_cap + CHUNK:
                del self.tail[: len(self.tail) - self.tail_cap]

    def text(self) -> tuple[str, bool]:
        """The captured text and whether anything was cut."""
        tail = bytes(self.tail[-self.tail_cap :]) if self.tail_cap else b""
        cut = self.total - len(self.head) - len(tail)
        if cut <= 0:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace"), False
        marker = f"\n[... {cut} bytes cut by the sandbox ...]\n"
        return self.head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace"), True


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


# --- files ---------------------------------------------------------------------------------------


def safe_name(name: str) -> str:
    """Refuse names that are absolute, empty, or climb out of the work dir."""
    parts = name.split("/")
    if not name or "\x00" in name or any(part in ("", ".", "..") for part in parts):
        msg = f"bad file name {name!r}"
        raise ValueError(msg)
    return name


def write_input(workdir: str, name: str, mode: int, data: bytes) -> None:
    """Create one input file in the work dir."""
    path = os.path.join(workdir, safe_name(name))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(path, flags, mode & 0o755 or 0o644)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def send_outputs(workdir: str, inputs: dict[str, str], config: dict[str, Any]) -> list[str]:
    """Stream the files the code wrote or changed; return the names dropped over the caps."""
    dropped: list[str] = []
    count = total = 0
    for root, dirs, names in os.walk(workdir):
        dirs.sort()
        for base in sorted(names):
            path = os.path.join(root, base)
            name = os.path.relpath(path, workdir)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink, a fifo we cannot open, or gone
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    continue
                size = info.st_size
                over = (
                    size > config["max_file"]
                    or total + size > config["max_files_bytes"]
                    or count >= config["max_files"]
                )
                if over:
                    dropped.append(name)
                    continue
                data = read_exactly(fd, size) or b""
            finally:
                os.close(fd)
            if inputs.get(name) == hashlib.sha256(data).hexdigest():
                continue  # an input file the code left as it was
            count += 1
            total += len(data)
            send({"kind": "file", "name": name, "mode": info.st_mode & 0o777}, data)
    return dropped


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
    """Prime, report ready, take one request, run it, answer, exit."""
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
    result["files_dropped"] = send_outputs(workdir, inputs, config)
    send(result)
    return 0


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
