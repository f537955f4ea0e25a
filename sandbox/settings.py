"""Sandbox settings: the image, the limits every container gets, and the warm pool size."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DEFAULT_IMAGE", "SandboxSettings"]

DEFAULT_IMAGE = "python:3.12-slim"


class SandboxSettings(BaseModel):
    """Limits for code execution; every field has a safe default."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    image: str = DEFAULT_IMAGE
    """Docker image with python3 (``society sandbox build`` adds pip packages)."""
    timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """Wall-clock limit of one execution; past it the process and container are killed."""
    memory_mb: int = Field(default=256, ge=16, le=65536)
    """Memory limit (no swap beyond it)."""
    cpus: float = Field(default=1.0, gt=0, le=64)
    """CPU quota in cores."""
    pids: int = Field(default=64, ge=8, le=4096)
    """Most processes and threads at once (stops fork bombs)."""
    workdir_mb: int = Field(default=64, ge=1, le=4096)
    """Size of the tmpfs work directory (and of /tmp)."""
    max_output_bytes: int = Field(default=1_000_000, ge=1024)
    """Cap on each of stdout and stderr; the rest is cut and flagged."""
    max_file_bytes: int = Field(default=5_000_000, ge=1024)
    """Cap on one file written by the code (also its RLIMIT_FSIZE)."""
    max_files_bytes: int = Field(default=20_000_000, ge=1024)
    """Cap on all files returned from one execution."""
    max_files: int = Field(default=1000, ge=1, le=100_000)
    """Cap on the number of files returned from one execution."""
    max_input_bytes: int = Field(default=20_000_000, ge=1024)
    """Cap on the input files sent into one execution."""
    nofile: int = Field(default=256, ge=16, le=65536)
    """Open files per process."""
    pool_size: int = Field(default=2, ge=0, le=64)
    """Warm containers kept ready (0: start one per execution)."""
    user: str = "65534:65534"
    """Unprivileged numeric uid:gid the code runs as (never 0)."""
    pull: bool = True
    """Try to pull the image when it is missing (with no registry this fails fast)."""
    start_timeout_s: float = Field(default=60.0, gt=0, le=600)
    """Longest wait for a fresh container to start and report ready."""
    docker_host: str | None = None
    """Docker daemon address; unset means DOCKER_HOST, else the local socket."""

    @field_validator("user")
    @classmethod
    def _numeric_unprivileged(cls, value: str) -> str:
        match = re.fullmatch(r"(\d+):(\d+)", value)
        if match is None:
            msg = f"user must be a numeric uid:gid such as 65534:65534, not {value!r}"
            raise ValueError(msg)
        if int(match[1]) == 0 or int(match[2]) == 0:
            msg = "user must not be root (uid or gid 0)"
            raise ValueError(msg)
        return value

    @property
    def uid(self) -> int:
        """The numeric user id of ``user``."""
        return int(self.user.split(":")[0])

    @property
    def gid(self) -> int:
        """The numeric group id of ``user``."""
        return int(self.user.split(":")[1])
