"""Code execution in hardened, single-use Docker containers served from a warm pool.

    from sandbox import Sandbox, SandboxSettings

    async with Sandbox(SandboxSettings(), label=run_id) as sb:
        result = await sb.execute("print(1 + 1)")

Only this package imports the docker SDK, and only when a name that needs it is first used
(PEP 562), so the CLI starts without it; its errors surface as ``SandboxError`` subclasses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.cleanup import gc as gc
    from sandbox.cleanup import list_containers as list_containers
    from sandbox.cleanup import remove_containers as remove_containers
    from sandbox.container import hardening as hardening
    from sandbox.daemon import connect as connect
    from sandbox.errors import BuildError as BuildError
    from sandbox.errors import ContainerStopped as ContainerStopped
    from sandbox.errors import DockerUnavailable as DockerUnavailable
    from sandbox.errors import ImageMissing as ImageMissing
    from sandbox.errors import SandboxClosed as SandboxClosed
    from sandbox.errors import SandboxError as SandboxError
    from sandbox.errors import SandboxFailure as SandboxFailure
    from sandbox.errors import SandboxInputError as SandboxInputError
    from sandbox.images import build_image as build_image
    from sandbox.images import default_tag as default_tag
    from sandbox.images import ensure_image as ensure_image
    from sandbox.images import with_manifest as with_manifest
    from sandbox.labels import POOL as POOL
    from sandbox.labels import PROJECT as PROJECT
    from sandbox.labels import RUN as RUN
    from sandbox.labels import container_labels as container_labels
    from sandbox.manifest import Manifest as Manifest
    from sandbox.manifest import missing_module_hint as missing_module_hint
    from sandbox.manifest import read_manifest as read_manifest
    from sandbox.result import ExecutionResult as ExecutionResult
    from sandbox.sandbox import Sandbox as Sandbox
    from sandbox.sandbox import SandboxState as SandboxState
    from sandbox.settings import DEFAULT_IMAGE as DEFAULT_IMAGE
    from sandbox.settings import SandboxSettings as SandboxSettings

_WHERE = {
    "gc": "cleanup",
    "list_containers": "cleanup",
    "remove_containers": "cleanup",
    "hardening": "container",
    "connect": "daemon",
    "BuildError": "errors",
    "ContainerStopped": "errors",
    "DockerUnavailable": "errors",
    "ImageMissing": "errors",
    "SandboxClosed": "errors",
    "SandboxError": "errors",
    "SandboxFailure": "errors",
    "SandboxInputError": "errors",
    "build_image": "images",
    "default_tag": "images",
    "ensure_image": "images",
    "POOL": "labels",
    "PROJECT": "labels",
    "RUN": "labels",
    "container_labels": "labels",
    "Manifest": "manifest",
    "missing_module_hint": "manifest",
    "read_manifest": "manifest",
    "with_manifest": "images",
    "ExecutionResult": "result",
    "Sandbox": "sandbox",
    "SandboxState": "sandbox",
    "DEFAULT_IMAGE": "settings",
    "SandboxSettings": "settings",
}


def __getattr__(name: str) -> Any:
    """Import the submodule that holds ``name`` on first use."""
    module = _WHERE.get(name)
    if module is None:
        msg = f"module 'sandbox' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(f"sandbox.{module}"), name)
    globals()[name] = value
    return value


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
    "Manifest",
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
    "missing_module_hint",
    "read_manifest",
    "remove_containers",
    "with_manifest",
]
