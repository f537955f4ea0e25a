"""Sandbox fixtures: the real Docker daemon and image, one warm Sandbox shared by the session.

Each execution gets a container of its own, so tests share the pool freely; tests that
change settings or break things on purpose open a Sandbox of their own. Every Sandbox made
here carries a label under ``LABEL_PREFIX``, and the session ends by checking that no
container with those labels is left.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import docker
import pytest

from sandbox import PROJECT, RUN, Sandbox, SandboxError, SandboxSettings, connect, ensure_image
from tests.conftest import require

SESSION = f"pytest-sandbox-{uuid.uuid4().hex[:8]}"
"""The label of the shared sandbox; other sandboxes here use ``label()``."""


def label(name: str) -> str:
    """A label of this session for a test's own Sandbox."""
    return f"{SESSION}-{name}"


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    """A client for the real daemon, after checking the default image is there."""
    try:
        client = connect(connect_timeout_s=5)
        ensure_image(client, SandboxSettings().image, pull=False)
    except SandboxError as exc:
        require(False, f"the sandbox tests need Docker and the image: {exc}")
        raise
    yield client
    client.close()


@pytest.fixture(scope="session")
def settings(docker_client: docker.DockerClient) -> SandboxSettings:
    """The shared sandbox's settings: the defaults, a short timeout, two warm containers."""
    return SandboxSettings(timeout_s=10, pool_size=2)


@pytest.fixture(scope="session")
async def sandbox(settings: SandboxSettings) -> AsyncIterator[Sandbox]:
    """One warm sandbox for the session (each execution still gets its own container)."""
    async with Sandbox(settings, label=SESSION) as sb:
        yield sb


@pytest.fixture(scope="session", autouse=True)
def no_leftovers() -> Iterator[None]:
    """After the session (and its sandboxes' teardown), no container with its labels remains."""
    yield
    try:
        client = connect(connect_timeout_s=5)
    except SandboxError:
        return  # no Docker: nothing can be left over
    try:
        left = [
            item["Labels"].get(RUN, "")
            for item in client.api.containers(all=True, filters={"label": f"{PROJECT}=1"})
            if item["Labels"].get(RUN, "").startswith(SESSION)
        ]
    finally:
        client.close()
    assert not left, f"sandbox containers left behind: {left}"
