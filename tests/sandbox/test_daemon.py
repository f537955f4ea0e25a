"""When Docker or the image is missing: quick, clear errors that say how to fix it."""

from __future__ import annotations

import time

import pytest

from sandbox import DockerUnavailable, ImageMissing, Sandbox, SandboxSettings, connect, gc

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("unix:///nonexistent/docker.sock", "no such socket"),
        ("tcp://127.0.0.1:1", "connection refused"),
    ],
)
async def test_unreachable_daemon_named_in_the_error(host: str, reason: str) -> None:
    started = time.monotonic()
    with pytest.raises(DockerUnavailable) as caught:
        async with Sandbox(SandboxSettings(docker_host=host), label="pytest-nodocker"):
            pass
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert host in message
    assert reason in message
    assert "DOCKER_HOST" in message and "scripts/setup" in message


async def test_bad_docker_host_env_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///tmp/no-such-dir/docker.sock")
    with pytest.raises(DockerUnavailable, match=r"no-such-dir/docker.sock \(from DOCKER_HOST\)"):
        connect()
    with pytest.raises(DockerUnavailable, match="from DOCKER_HOST"):
        await gc()


@pytest.mark.docker
@pytest.mark.parametrize("pull", [False, True])
async def test_missing_image_says_how_to_get_it(pull: bool, docker_client: object) -> None:
    image = "society-no-such-image:never"
    started = time.monotonic()
    with pytest.raises(ImageMissing) as caught:
        async with Sandbox(SandboxSettings(image=image, pull=pull), label="pytest-noimage"):
            pass
    assert time.monotonic() - started < 30
    message = str(caught.value)
    assert image in message
    assert "scripts/setup" in message and "society sandbox build" in message
    assert ("pulling failed" if pull else "pulling is off") in message
