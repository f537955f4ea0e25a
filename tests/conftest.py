"""Shared fixtures: one real nats-server for the session, unique run ids, CI strictness.

Integration tests use the real things. Where CI is set, a missing Docker daemon or
nats-server is a failure, never a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bus import EmbeddedServer

IN_CI = bool(os.environ.get("CI"))


def require(condition: bool, why: str) -> None:
    """Skip locally, fail in CI, when an integration prerequisite is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI requires this: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def nats_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nats")


@pytest.fixture(scope="session")
async def nats_server(nats_store: Path) -> AsyncIterator[EmbeddedServer]:
    """One real nats-server with JetStream for the whole session."""
    async with EmbeddedServer(nats_store) as server:
        yield server


@pytest.fixture(scope="session")
def nats_url(nats_server: EmbeddedServer) -> str:
    return nats_server.url


@pytest.fixture
def run_id() -> str:
    """A run id of its own for each test, so tests sharing a server never see each other."""
    return f"t{uuid.uuid4().hex[:12]}"


def docker_ready(image: str) -> tuple[bool, str]:
    """Whether a Docker daemon answers and has ``image``; the reason when not."""
    try:
        import docker
        import docker.errors

        client = docker.from_env(version="auto", timeout=10)
        try:
            client.images.get(image)
        finally:
            client.close()
    except Exception as exc:
        return False, f"Docker or the image {image} is not available ({exc}); run scripts/setup"
    return True, ""


@pytest.fixture(scope="session")
async def shared_sandbox() -> AsyncIterator[object]:
    """One warm sandbox pool shared by the society tests (each execution is isolated)."""
    from sandbox import Sandbox, SandboxSettings

    settings = SandboxSettings(pool_size=2, timeout_s=20)
    ok, why = docker_ready(settings.image)
    require(ok, why)
    async with Sandbox(settings, label="pytest-society") as sandbox:
        yield sandbox
