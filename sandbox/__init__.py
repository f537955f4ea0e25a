"""Code execution in hardened, single-use Docker containers served from a warm pool.

    from sandbox import Sandbox, SandboxSettings

    async with Sandbox(SandboxSettings(), label=run_id) as sb:
        result = await sb.execute("print(1 + 1)")

Only this package imports the docker SDK; its errors surface as ``SandboxError`` subclasses.
"""

from sandbox.cleanup import gc, list_containers, remove_containers
from sandbox.container import hardening
from sandbox.daemon import connect
from sandbox.errors import (
    BuildError,
    ContainerStopped,
    DockerUnavailable,
    ImageMissing,
    SandboxClosed,
    SandboxError,
    SandboxFailure,
    SandboxInputError,
)
from sandbox.images import build_image, default_tag, ensure_image
from sandbox.labels import POOL, PROJECT, RUN, container_labels
from sandbox.result import ExecutionResult
from sandbox.sandbox import Sandbox, SandboxState
from sandbox.settings import DEFAULT_IMAGE, SandboxSettings

__all__ = [
    "DEFAULT_IMAGE",
    "POOL",
    "PROJECT",
    "RUN",
    "BuildError",
    "ContainerStopped",
    "DockerUnavailable",
    "ExecutionResult",
    "ImageMissing",
    "Sandbox",
    "SandboxClosed",
    "SandboxError",
    "SandboxFailure",
    "SandboxInputError",
    "SandboxSettings",
    "SandboxState",
    "build_image",
    "connect",
    "container_labels",
    "default_tag",
    "ensure_image",
    "gc",
    "hardening",
    "list_containers",
    "remove_containers",
]
