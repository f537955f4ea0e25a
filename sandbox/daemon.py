"""Connecting to the Docker daemon, with bounded time and an error that says how to fix it."""

from __future__ import annotations

import os

import docker
import docker.errors
import requests.exceptions

from sandbox.errors import DockerUnavailable

__all__ = ["DEFAULT_SOCKET", "connect", "describe_target"]

DEFAULT_SOCKET = "unix:///var/run/docker.sock"
CONNECT_TIMEOUT_S = 10
"""Longest wait for the daemon to answer its first request."""
API_TIMEOUT_S = 180
"""Longest wait for any later request (create, start, remove, ...)."""


def describe_target(host: str | None = None) -> tuple[str, str]:
    """The daemon address that will be tried and where it came from."""
    if host:
        return host, "from the sandbox settings"
    env = os.environ.get("DOCKER_HOST")
    if env:
        return env, "from DOCKER_HOST"
    return DEFAULT_SOCKET, "the default socket; DOCKER_HOST is not set"


def connect(
    host: str | None = None,
    *,
    connect_timeout_s: int = CONNECT_TIMEOUT_S,
    timeout_s: int = API_TIMEOUT_S,
) -> docker.DockerClient:
    """A client for the daemon at ``host`` (else DOCKER_HOST, else the local socket).

    Blocking; never waits longer than ``connect_timeout_s`` for the first answer. Raises
    ``DockerUnavailable`` naming the address tried and how to fix it.
    """
    target, source = describe_target(host)
    try:
        if host:
            client = docker.DockerClient(base_url=host, version="auto", timeout=connect_timeout_s)
        else:
            client = docker.from_env(version="auto", timeout=connect_timeout_s)
    except (docker.errors.DockerException, requests.exceptions.RequestException, OSError) as exc:
        raise DockerUnavailable(target, source, _reason(exc, connect_timeout_s)) from exc
    client.api.timeout = timeout_s
    return client


def _reason(exc: BaseException, timeout_s: int) -> str:
    """A short, human reason for a failed connection, found anywhere in the exception chain."""
    for cause in _chain(exc):
        if isinstance(cause, FileNotFoundError):
            return "no such socket (is the daemon running?)"
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused (is the daemon running and listening there?)"
        if isinstance(cause, PermissionError):
            return "permission denied (your user may not use the socket: join the docker group)"
        if isinstance(cause, TimeoutError | requests.exceptions.Timeout):
            return f"no answer within {timeout_s:g} s"
    text = str(exc).removeprefix("Error while fetching server API version: ")
    return text if len(text) <= 300 else text[:300] + "..."


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception reachable from it through causes, contexts and args."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop(0)
        if any(current is known for known in seen):
            continue
        seen.append(current)
        todo.extend(arg for arg in current.args if isinstance(arg, BaseException))
        todo.extend(link for link in (current.__cause__, current.__context__) if link is not None)
    return seen
