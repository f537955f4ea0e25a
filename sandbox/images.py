"""Sandbox images: make sure the configured one exists, and build one with extra pip packages.

``build_image`` is what ``society sandbox build`` runs. Network is used only while building
(``pip install`` inside ``docker build``); the containers that later run code from the image
still get ``network_mode=none``.
"""

from __future__ import annotations

import hashlib
import io
import re
import shlex
from collections.abc import Iterator, Sequence
from typing import Any

import docker
import docker.errors
import requests.exceptions
from docker.utils import parse_repository_tag

from sandbox.daemon import connect
from sandbox.errors import BuildError, ImageMissing
from sandbox.labels import PROJECT
from sandbox.manifest import read_manifest
from sandbox.settings import DEFAULT_IMAGE, SandboxSettings

__all__ = ["build_image", "default_tag", "dockerfile", "ensure_image", "with_manifest"]

_REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-\[\],<>=!~*+;:@/ ']*")
"""A pip requirement: a name with extras, versions, markers, or a URL; never a pip option."""
_LOG_TAIL = 20
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def ensure_image(client: docker.DockerClient, image: str, *, pull: bool = True) -> None:
    """Return if ``image`` is present, else pull it (when allowed); raise ImageMissing. Blocking."""
    try:
        client.images.get(image)
        return
    except docker.errors.ImageNotFound:
        pass
    except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
        raise ImageMissing(image, f"the daemon could not inspect it ({exc})") from exc
    if not pull:
        raise ImageMissing(image, "it is not present locally and pulling is off (sandbox.pull)")
    repository, tag = parse_repository_tag(image)
    try:
        client.images.pull(repository, tag=tag or "latest")
    except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
        reason = getattr(exc, "explanation", None) or str(exc)
        raise ImageMissing(
            image, f"it is not present locally and pulling failed: {reason}"
        ) from exc


def with_manifest(settings: SandboxSettings) -> SandboxSettings:
    """``settings`` with the manifest its image carries filled in (unchanged when it already
    has one, or the image has none or cannot be read). Blocking."""
    if settings.manifest is not None:
        return settings
    manifest = read_manifest(settings.image, settings.docker_host)
    return settings if manifest is None else settings.model_copy(update={"manifest": manifest})


def default_tag(packages: Sequence[str], base: str = DEFAULT_IMAGE) -> str:
    """A tag that names the base and package set: ``society-sandbox:<12 hex digits>``."""
    digest = hashlib.sha256("\n".join([base, *sorted(packages)]).encode()).hexdigest()
    return f"society-sandbox:{digest[:12]}"


def dockerfile(packages: Sequence[str], base: str = DEFAULT_IMAGE) -> str:
    """The Dockerfile for ``base`` plus ``packages``; checks python3 runs in the result."""
    for package in packages:
        if not _REQUIREMENT.fullmatch(package):
            msg = f"not a pip requirement (options are not allowed): {package!r}"
            raise BuildError(default_tag(packages, base), msg)
    lines = [f"FROM {base}", "USER root"]
    if packages:
        lines += [
            "ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_BREAK_SYSTEM_PACKAGES=1",
            "RUN python3 -m pip install " + " ".join(shlex.quote(p) for p in packages),
        ]
    lines.append('RUN python3 -c "import sys; print(sys.version)"')
    return "\n".join(lines) + "\n"


def build_image(
    packages: Sequence[str],
    *,
    tag: str | None = None,
    base: str = DEFAULT_IMAGE,
    network: str | None = None,
    docker_host: str | None = None,
) -> str:
    """Build ``base`` plus pip ``packages`` as ``tag`` (default: ``default_tag``); blocking.

    ``network`` is the build's network mode (None: the daemon's default; ``host`` where the
    daemon has no bridge). Returns the tag. Raises DockerUnavailable, ImageMissing (the base
    is missing) or BuildError with the end of the build log.
    """
    tag = tag or default_tag(packages, base)
    source = dockerfile(packages, base)
    client = connect(docker_host)
    try:
        ensure_image(client, base, pull=True)
        labels = {
            PROJECT: "1",
            f"{PROJECT}.base": base,
            f"{PROJECT}.packages": " ".join(packages),
        }
        try:
            stream = client.api.build(
                fileobj=io.BytesIO(source.encode()),
                tag=tag,
                rm=True,
                forcerm=True,
                pull=False,
                decode=True,
                labels=labels,
                network_mode=network,
            )
            _follow(tag, stream)
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            raise BuildError(tag, str(exc)) from exc
    finally:
        client.close()
    return tag


def _follow(tag: str, stream: Iterator[dict[str, Any]]) -> None:
    """Read the build's progress, raising BuildError with the log's tail on an error."""
    log: list[str] = []
    for chunk in stream:
        if "stream" in chunk:
            text = _ANSI.sub("", str(chunk["stream"]))
            log.extend(line for line in text.splitlines() if line.strip())
            del log[:-_LOG_TAIL]
        if "error" in chunk:
            raise BuildError(tag, str(chunk["error"]).strip(), "\n".join(log))
