"""Errors of the sandbox package; the docker SDK's exceptions are translated into these here.

SandboxError
├── DockerUnavailable   no Docker daemon answered at the socket/DOCKER_HOST tried
├── ImageMissing        the image is not present and could not be pulled
├── BuildError          ``society sandbox build`` could not build the image
├── SandboxClosed       the Sandbox was used while not open
├── SandboxInputError   the caller's code or files are not acceptable (also a ValueError)
└── SandboxFailure      a container or its supervisor failed (not the code it ran)
    └── ContainerStopped    the container stopped before its supervisor answered

Only ``SandboxFailure`` can happen inside ``Sandbox.execute``, and there it is turned into an
``ExecutionResult`` with ``error`` set; the others reach the caller.
"""

from __future__ import annotations

__all__ = [
    "BuildError",
    "ContainerStopped",
    "DockerUnavailable",
    "ImageMissing",
    "SandboxClosed",
    "SandboxError",
    "SandboxFailure",
    "SandboxInputError",
]


class SandboxError(Exception):
    """Root of every error raised by the sandbox package."""


class DockerUnavailable(SandboxError):
    """No Docker daemon could be reached; says where we looked and how to fix it."""

    def __init__(self, target: str, source: str, reason: str) -> None:
        self.target = target
        self.source = source
        self.reason = reason
        super().__init__(
            f"cannot reach the Docker daemon at {target} ({source}): {reason}. "
            "Start Docker (scripts/setup starts one on Debian as root; elsewhere "
            "`sudo systemctl start docker` or Docker Desktop), make sure you may use its "
            "socket (the `docker` group), or set DOCKER_HOST to a running daemon."
        )


class ImageMissing(SandboxError):
    """The sandbox image is not present locally and could not be pulled."""

    def __init__(self, image: str, reason: str) -> None:
        self.image = image
        self.reason = reason
        super().__init__(
            f"the sandbox image {image!r} is not available: {reason}. Get it with "
            f"`scripts/setup` (pulls it, or builds an equivalent offline), `docker pull {image}`, "
            f"or build one with extra packages: `society sandbox build --tag {image} PACKAGE...`."
        )


class BuildError(SandboxError):
    """Building a sandbox image failed; carries the end of the build log."""

    def __init__(self, tag: str, reason: str, log_tail: str = "") -> None:
        self.tag = tag
        self.reason = reason
        self.log_tail = log_tail
        tail = f"\n--- end of the build log ---\n{log_tail}" if log_tail else ""
        super().__init__(f"building the sandbox image {tag!r} failed: {reason}{tail}")


class SandboxClosed(SandboxError):
    """The sandbox was used before ``__aenter__`` or after ``__aexit__``."""


class SandboxInputError(SandboxError, ValueError):
    """The code or input files handed to ``execute`` break a rule (name, size, label)."""


class SandboxFailure(SandboxError):
    """A container or its supervisor failed; the code's own failures are results, not this."""


class ContainerStopped(SandboxFailure):
    """The container stopped before its supervisor answered; says why when Docker knows."""

    def __init__(self, message: str, *, oom_killed: bool, exit_code: int | None) -> None:
        self.oom_killed = oom_killed
        self.exit_code = exit_code
        super().__init__(message)
