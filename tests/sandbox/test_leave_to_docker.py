"""A Sandbox that does not wait for removal (`society run`'s): closing hands its containers to
Docker's auto-remove instead of removing them itself, and still leaves nothing behind."""

from __future__ import annotations

import os
from typing import Any

import docker
import docker.errors
import pytest

from sandbox import Sandbox, SandboxSettings, list_containers
from sandbox.start_call import StartCall
from tests.containers import wait_removed
from tests.sandbox.conftest import label

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]


async def test_closing_leaves_idle_and_used_containers_to_docker(
    settings: SandboxSettings, docker_client: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    removed: list[str] = []
    run = label(f"leave-{os.urandom(3).hex()}")
    async with Sandbox(settings, label=run, wait_for_removal=False) as sb:
        assert sb._client is not None
        api = sb._client.api  # this sandbox's client (the session's sandbox has its own)
        remove = api.remove_container

        def counted(container: str, **kwargs: Any) -> None:
            removed.append(container)
            remove(container, **kwargs)

        monkeypatch.setattr(api, "remove_container", counted)
        assert (await sb.execute("print('used')")).stdout == "used\n"
        await sb.wait_idle()  # refilled: nothing is starting when it closes
        assert len(list_containers(docker_client, run=run)) >= settings.pool_size
    assert removed == []  # neither the used container nor the idle ones were removed by us
    assert wait_removed(docker_client, run) == []


async def test_closing_while_containers_start_leaves_nothing_behind(
    settings: SandboxSettings, docker_client: docker.DockerClient
) -> None:
    run = label(f"leave-starting-{os.urandom(3).hex()}")
    pool = settings.model_copy(update={"pool_size": 4})
    async with Sandbox(pool, label=run, wait_for_removal=False) as sb:
        assert sb.pool_target == 4  # one is ready; the other three are still starting
    assert wait_removed(docker_client, run) == []


async def test_a_refused_start_names_docker_s_reason(docker_client: docker.DockerClient) -> None:
    call = StartCall(docker_client.api, f"no-such-container-{os.urandom(4).hex()}")
    with pytest.raises(docker.errors.APIError, match=r"404 .*[Nn]o such container"):
        await call.run()
    assert call.sent.is_set()
