"""Checks on what goes into an execution: file names, sizes, and the timeout."""

from __future__ import annotations

from collections.abc import Mapping

from sandbox.errors import SandboxInputError
from sandbox.settings import SandboxSettings

__all__ = ["check_inputs", "effective_timeout"]


def check_name(name: str) -> None:
    """A relative path inside the work dir: no empty, ``.`` or ``..`` parts, no NUL."""
    parts = name.split("/")
    if not name or "\x00" in name or any(part in ("", ".", "..") for part in parts):
        msg = f"input file name {name!r} must be a relative path without '.', '..' or '//'"
        raise SandboxInputError(msg)
    if any(len(part.encode()) > 255 for part in parts):
        msg = f"input file name {name!r} has a part longer than 255 bytes"
        raise SandboxInputError(msg)


def check_inputs(code: str, files: Mapping[str, bytes], settings: SandboxSettings) -> None:
    """Raise SandboxInputError unless the code and files fit the rules and ``max_input_bytes``."""
    total = len(code.encode())
    names = set(files)
    for name, data in files.items():
        check_name(name)
        if not isinstance(data, bytes | bytearray | memoryview):
            msg = f"input file {name!r} must be bytes, not {type(data).__name__}"
            raise SandboxInputError(msg)
        total += len(data)
        parents = name.split("/")[:-1]
        for depth in range(1, len(parents) + 1):
            if "/".join(parents[:depth]) in names:
                msg = f"input file {name!r} needs a directory where another input is a file"
                raise SandboxInputError(msg)
    if total > settings.max_input_bytes:
        msg = (
            f"the code and input files are {total:,} bytes, over "
            f"max_input_bytes={settings.max_input_bytes:,}"
        )
        raise SandboxInputError(msg)


def effective_timeout(requested: float | None, settings: SandboxSettings) -> float:
    """The timeout for one execution: the request's, never above ``settings.timeout_s``."""
    if requested is None:
        return settings.timeout_s
    if not requested > 0:
        msg = f"timeout_s must be positive, not {requested!r}"
        raise SandboxInputError(msg)
    return min(requested, settings.timeout_s)
