"""A container that answered stays up, idle, until its host lets go: Docker's teardown of
it (real CPU on a small machine) then happens at a moment the pool picks, not during the
next execution."""

from __future__ import annotations

import asyncio

import docker
import pytest
import requests.exceptions

from sandbox import SandboxSettings, container_labels
from sandbox.container import start_warm
from tests.containers import wait_removed
from tests.sandbox.conftest import label

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]


def still_running_after(client: docker.DockerClient, container_id: str, seconds: int) -> bool:
    """True when the container has not stopped within ``seconds``."""
    try:
        client.api.wait(container_id, timeout=seconds)
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout):  # read timed out
        return True  # still up
    return False


async def test_an_answered_container_stops_only_when_its_host_lets_go(
    docker_client: docker.DockerClient,
) -> None:
    settings = SandboxSettings(timeout_s=30)
    run = label("linger")
    labels = container_labels(run, "linger")
    container = await start_warm(docker_client.api, settings, labels, wait_for_removal=False)
    try:
        result = await container.run("print(6 * 7)", {}, 30)
        assert result.stdout.strip() == "42"
        assert container.answered and container.leaves_by_itself
        assert await asyncio.to_thread(still_running_after, docker_client, container.id, 3)
    finally:
        container.channel.close()  # EOF: the supervisor exits and Docker removes it
    assert await asyncio.to_thread(wait_removed, docker_client, run) == []
