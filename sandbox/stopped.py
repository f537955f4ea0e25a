"""Why a container stopped before its supervisor answered, from Docker's own record.

The supervisor outlives the code and answers even when the code filled memory or a tmpfs;
if it is killed all the same (the memory limit reached with nothing else left to kill), the
host sees only a closed connection. Docker knows more: its recent events (``oom``, then
``die`` with the exit code) outlive a container it already removed (``auto_remove``), so
the error can name out-of-memory instead of only "closed the connection".
"""

from __future__ import annotations

import asyncio
import time

import docker
import docker.errors
import requests.exceptions
import structlog

from sandbox.errors import ContainerStopped
from sandbox.settings import TMPFS_MOUNTS, SandboxSettings

__all__ = ["stopped_failure"]

EVENT_WAIT_S = 5.0
"""Longest wait for Docker to record the container's exit."""
_DOCKER_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException, OSError)

log = structlog.get_logger("sandbox")


async def stopped_failure(
    api: docker.APIClient, container_id: str, settings: SandboxSettings, message: str
) -> ContainerStopped:
    """The error for a container that stopped before answering, naming out-of-memory when
    Docker saw the OOM killer strike; ``message`` says what the connection saw."""
    try:
        oom_killed, exit_code = await asyncio.to_thread(stop_record, api, container_id)
    except _DOCKER_ERRORS as exc:
        log.warning("sandbox.no_stop_record", container=container_id[:12], error=str(exc))
        oom_killed, exit_code = False, None
    if oom_killed:
        text = (
            f"the container ran out of memory (memory_mb={settings.memory_mb}; files in "
            f"{', '.join(TMPFS_MOUNTS)} count against it) and the kernel killed the sandbox's "
            "supervisor before it answered, so the program's output and files are lost"
        )
    elif exit_code is not None:
        text = f"{message} (the container exited with status {exit_code})"
    else:
        text = message
    return ContainerStopped(text, oom_killed=oom_killed, exit_code=exit_code)


def stop_record(api: docker.APIClient, container_id: str) -> tuple[bool, int | None]:
    """Whether the OOM killer struck in the container, and its exit code (None: not seen);
    blocking, for at most ``EVENT_WAIT_S``."""
    now = int(time.time())
    events = api.events(
        since=now - 60,
        until=now + int(EVENT_WAIT_S) + 1,
        filters={"container": container_id, "type": "container"},
        decode=True,
    )
    oom_killed, exit_code = False, None
    try:
        for event in events:
            action = event.get("Action") or event.get("status")
            if action == "oom":
                oom_killed = True
            elif action == "die":
                code = event.get("Actor", {}).get("Attributes", {}).get("exitCode")
                exit_code = int(code) if str(code).lstrip("-").isdigit() else None
                break
    finally:
        events.close()
    return oom_killed, exit_code
