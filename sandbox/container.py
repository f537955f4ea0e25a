"""One hardened container running the supervisor: create, attach, start, wait ready, destroy.

Every container gets the same hardening (``hardening``): no network, read-only root
filesystem, tmpfs limited in size and inodes for the work dir, /tmp and /dev/shm (their files
count against the memory limit, see ``SandboxSettings``), an unprivileged numeric user, all
capabilities dropped, no-new-privileges, memory with no swap beyond it, a CPU quota, a pids
limit, nofile/fsize/core ulimits, no logs kept by Docker, no mounts, not privileged, and
labels naming the project, run and pool. ``auto_remove`` is set too, so a container whose
host vanished (its supervisor sees stdin close and exits) removes itself, but cleanup never
relies on it: ``destroy`` removes the container explicitly. A container that stops before its
supervisor answers is asked why (``sandbox.stopped``), so the error names out-of-memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import docker
import docker.errors
import requests.exceptions
import structlog
from docker.types import LogConfig, Ulimit

from sandbox.channel import Channel, open_channel
from sandbox.errors import SandboxFailure
from sandbox.protocol import encode
from sandbox.result import ExecutionResult
from sandbox.settings import TMPFS_MOUNTS, SandboxSettings
from sandbox.start_call import StartCall
from sandbox.stopped import stopped_failure

__all__ = ["WORKDIR", "WarmContainer", "destroy", "hardening", "start_warm", "supervisor_source"]

WORKDIR = TMPFS_MOUNTS[0]
"""The code's working directory: a tmpfs owned by the sandbox user."""
SUPERVISOR_MODULES = ("supervisor_wire", "supervisor_files", "supervisor")
"""The supervisor's modules (standard library only), in import order; the last has ``main``."""
_LOADER = '''\
"""The sandbox supervisor: its modules under their own names, then its main."""
import sys, types
sys.modules["sandbox"] = types.ModuleType("sandbox")
for name, source in {modules!r}:
    module = types.ModuleType("sandbox." + name)
    sys.modules[module.__name__] = module
    exec(compile(source, "sandbox/" + name + ".py", "exec"), module.__dict__)
sys.exit(module.main(sys.argv))
'''
_HEADER_SLACK = 1 << 20
_DOCKER_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException, OSError)

log = structlog.get_logger("sandbox")


@cache
def supervisor_source() -> str:
    """The program passed as ``python3 -c``: the supervisor's modules (package data) and a
    loader that runs them in the container, where the ``sandbox`` package is not installed."""
    package = resources.files("sandbox")
    modules = [
        (name, package.joinpath(f"{name}.py").read_text(encoding="utf-8"))
        for name in SUPERVISOR_MODULES
    ]
    return _LOADER.format(modules=modules)


def hardening(settings: SandboxSettings) -> dict[str, Any]:
    """Host-config keyword arguments shared by the pool and any cold ``containers.run``."""
    limits = f"rw,nosuid,nodev,size={settings.workdir_mb}m,nr_inodes={settings.tmpfs_inodes}"
    fsize = max(settings.max_file_bytes + 1, settings.max_input_bytes)
    owned = f"uid={settings.uid},gid={settings.gid},mode=0700"
    return {
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {
            path: f"{limits},{owned if path == WORKDIR else 'mode=1777'}" for path in TMPFS_MOUNTS
        },
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "privileged": False,
        "mem_limit": f"{settings.memory_mb}m",
        "memswap_limit": f"{settings.memory_mb}m",
        "nano_cpus": int(settings.cpus * 1e9),
        "pids_limit": settings.pids,
        "ulimits": [
            Ulimit(name="nofile", soft=settings.nofile, hard=settings.nofile),
            Ulimit(name="fsize", soft=fsize, hard=fsize),
            Ulimit(name="core", soft=0, hard=0),
        ],
        "ipc_mode": "private",  # its /dev/shm is the tmpfs above, not Docker's own
        "log_config": LogConfig(type="none"),
    }


def _supervisor_config(settings: SandboxSettings) -> str:
    return json.dumps(
        {
            "workdir": WORKDIR,
            "fsize": settings.max_file_bytes + 1,
            "nofile": settings.nofile,
            "max_output": settings.max_output_bytes,
            "max_file": settings.max_file_bytes,
            "max_files": settings.max_files,
            "max_files_bytes": settings.max_files_bytes,
            "max_input": settings.max_input_bytes,
            "memory_mb": settings.memory_mb,
            "tmpfs": list(TMPFS_MOUNTS),
        }
    )


def _create(api: docker.APIClient, settings: SandboxSettings, labels: dict[str, str]) -> str:
    """Create (not start) one hardened supervisor container; blocking."""
    host_config = api.create_host_config(auto_remove=True, **hardening(settings))
    created = api.create_container(
        settings.image,
        command=["python3", "-I", "-u", "-c", supervisor_source(), _supervisor_config(settings)],
        user=settings.user,
        hostname="sandbox",
        stdin_open=True,  # with detach=False this also sets StdinOnce: our close is its EOF
        detach=False,
        tty=False,
        labels=labels,
        host_config=host_config,
    )
    container_id: str = created["Id"]
    return container_id


@dataclass(eq=False)
class WarmContainer:
    """A started container whose supervisor has primed python3 and waits for one request."""

    api: docker.APIClient
    id: str
    channel: Channel
    settings: SandboxSettings
    used: bool = False
    """A request was sent to it."""
    answered: bool = False
    """Its supervisor sent the result (and exits once its stdin closes: the container then
    stops by itself)."""

    @property
    def alive(self) -> bool:
        """False when the container stopped or its connection was closed."""
        return self.channel.alive

    @property
    def leaves_by_itself(self) -> bool:
        """Closing its connection is enough: its supervisor, idle or done answering, exits at
        EOF, and Docker removes the stopped container (auto-remove)."""
        return self.answered or (not self.used and self.channel.alive)

    async def run(self, code: str, files: dict[str, bytes], timeout_s: float) -> ExecutionResult:
        """Send the files and the code; collect the files written and the result.

        Raises SandboxFailure; ContainerStopped (naming out-of-memory when Docker saw it) when
        the container stopped before its supervisor answered.
        """
        try:
            return await self._run(code, files, timeout_s)
        except SandboxFailure as exc:
            if self.channel.alive:
                raise
            raise await stopped_failure(self.api, self.id, self.settings, str(exc)) from exc

    async def _run(self, code: str, files: dict[str, bytes], timeout_s: float) -> ExecutionResult:
        s = self.settings
        messages = [encode({"kind": "file", "name": n, "mode": 0o644}, d) for n, d in files.items()]
        messages.append(encode({"kind": "run", "timeout_s": timeout_s}, code.encode()))
        self.used = True
        await self.channel.send(*messages)
        out: dict[str, bytes] = {}
        max_header = 12 * s.max_output_bytes + _HEADER_SLACK
        while True:
            head, blob = await self.channel.receive(max_header, s.max_file_bytes)
            if head["kind"] == "file":
                out[str(head["name"])] = blob
                if len(out) > s.max_files or sum(map(len, out.values())) > s.max_files_bytes:
                    msg = "the supervisor sent more files than the caps allow"
                    raise SandboxFailure(msg)
            elif head["kind"] == "result":
                self.answered = True
                return _result(head, out)
            elif head["kind"] == "error":
                msg = f"the supervisor failed: {head.get('message')}"
                raise SandboxFailure(msg)
            else:
                msg = f"the supervisor sent an unexpected {head['kind']!r} message"
                raise SandboxFailure(msg)


def _result(head: dict[str, Any], files: dict[str, bytes]) -> ExecutionResult:
    exit_code = head.get("exit_code")
    return ExecutionResult(
        exit_code=exit_code if isinstance(exit_code, int) else None,
        stdout=str(head.get("stdout", "")),
        stderr=str(head.get("stderr", "")),
        stdout_truncated=bool(head.get("stdout_truncated")),
        stderr_truncated=bool(head.get("stderr_truncated")),
        wall_s=float(head.get("wall_s", 0.0)),
        timed_out=bool(head.get("timed_out")),
        oom_killed=bool(head.get("oom_killed")),
        files=files,
        files_dropped=[str(name) for name in head.get("files_dropped", [])],
        notes=[str(note) for note in head.get("notes", [])],
    )


async def start_warm(
    api: docker.APIClient,
    settings: SandboxSettings,
    labels: dict[str, str],
    *,
    wait_for_removal: bool = True,
) -> WarmContainer:
    """Create, attach, start and wait for the supervisor's ``ready``; raise SandboxFailure.

    Cancelled once started, without ``wait_for_removal``, it only closes the connection: the
    supervisor exits at EOF and Docker removes the container."""
    started = time.monotonic()
    create = asyncio.ensure_future(asyncio.to_thread(_create, api, settings, labels))
    try:
        container_id = await asyncio.shield(create)
    except asyncio.CancelledError:
        await _remove_once_created(api, create)
        raise
    except docker.errors.ImageNotFound as exc:
        msg = f"the image {settings.image!r} disappeared: {exc.explanation}"
        raise SandboxFailure(msg) from exc
    except _DOCKER_ERRORS as exc:
        msg = f"cannot create a sandbox container: {exc}"
        raise SandboxFailure(msg) from exc
    channel: Channel | None = None
    call = StartCall(api, container_id)
    start: asyncio.Future[None] | None = None
    try:
        params = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        attached = await asyncio.to_thread(api.attach_socket, container_id, params)
        channel = await open_channel(attached)
        start = asyncio.ensure_future(call.run())
        await asyncio.shield(start)
        left = settings.start_timeout_s - (time.monotonic() - started)
        async with asyncio.timeout(max(left, 0.1)):
            head, _ = await channel.receive(_HEADER_SLACK, 0)
        if head["kind"] != "ready":
            msg = f"the supervisor did not start: {head.get('message', head)}"
            raise SandboxFailure(msg)
    except BaseException as exc:
        cancelled = isinstance(exc, asyncio.CancelledError)
        if cancelled and not wait_for_removal and start is not None and await _started(start, call):
            assert channel is not None
            channel.close()  # its supervisor exits at EOF; Docker removes it
            raise
        if start is not None:  # a start still under way is abandoned: its outcome is moot
            start.add_done_callback(_outcome_moot)
        await destroy(api, container_id, channel)
        if isinstance(exc, TimeoutError):
            msg = f"the container did not get ready within {settings.start_timeout_s:g} s"
            raise SandboxFailure(msg) from exc
        if isinstance(exc, _DOCKER_ERRORS):
            msg = f"cannot start a sandbox container: {exc}"
            raise SandboxFailure(msg) from exc
        raise
    return WarmContainer(api, container_id, channel, settings)


def _outcome_moot(start: asyncio.Future[None]) -> None:
    """Retrieve the outcome of a start whose container is being removed anyway."""
    if not start.cancelled():
        start.exception()


async def _started(start: asyncio.Future[None], call: StartCall) -> bool:
    """Whether Docker started, or will start, the container. A request Docker has is left
    to finish; one not yet sent is dropped; the SDK's call in a thread is waited for."""
    if not start.done() and (call.sent.is_set() or not call.threaded):
        start.cancel()
        with contextlib.suppress(asyncio.CancelledError, *_DOCKER_ERRORS):
            await start
        return call.sent.is_set()
    try:
        await start
    except Exception:
        return False
    return True


async def _remove_once_created(api: docker.APIClient, create: asyncio.Future[str]) -> None:
    """A start cancelled while Docker creates its container: remove the container once
    the creating thread has it (the thread cannot be stopped)."""
    try:
        container_id = await create
    except Exception:  # nothing was created
        return
    await destroy(api, container_id)


async def destroy(api: docker.APIClient, container_id: str, channel: Channel | None = None) -> None:
    """Close the connection and force-remove the container; never raises a Docker error.

    A container that cannot be removed now (daemon gone) is logged; ``gc`` finds it later.
    """
    if channel is not None:
        channel.close()
    try:
        await asyncio.to_thread(remove_quietly, api, container_id)
    except _DOCKER_ERRORS as exc:
        log.warning("sandbox.remove_failed", container=container_id[:12], error=str(exc))


def remove_quietly(api: docker.APIClient, container_id: str) -> bool:
    """Force-remove a container (and its anonymous volumes); True if this call removed it."""
    try:
        api.remove_container(container_id, force=True, v=True)
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError as exc:
        if exc.status_code == 409:  # removal already in progress (auto_remove won the race)
            _wait_gone(api, container_id)
            return False
        raise
    return True


def _wait_gone(api: docker.APIClient, container_id: str, timeout_s: float = 10.0) -> None:
    """Block until a container being removed by Docker is gone (bounded), so that "removed"
    means gone for whoever counts containers next."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            api.inspect_container(container_id)
        except docker.errors.NotFound:
            return
        time.sleep(0.02)
