"""Sandbox settings: the image, the limits every container gets, and the warm pool size."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sandbox.manifest import Manifest

__all__ = ["DEFAULT_IMAGE", "INODE_KB", "RESERVE_MB", "TMPFS_MOUNTS", "SandboxSettings"]

DEFAULT_IMAGE = "society-sandbox:1"
TMPFS_MOUNTS = ("/work", "/tmp", "/dev/shm")
"""The writable places of a container: tmpfs mounts of ``workdir_mb`` and ``tmpfs_inodes`` each."""
INODE_KB = 1
"""Kernel memory one tmpfs inode (file or directory) takes, charged to the container."""
RESERVE_MB = 32
"""Memory kept for the supervisor and its python3 when the tmpfs mounts are full."""


class SandboxSettings(BaseModel):
    """Limits for code execution; every field has a safe default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    image: str = DEFAULT_IMAGE
    """Docker image with python3: ``society-sandbox:<version>`` (Python 3.11 and a locked
    data stack, built by ``scripts/build-sandbox``) unless you name another."""
    manifest: Manifest | None = None
    """What the image holds (Python and libraries), as its label says; read at the run's
    start when not given and recorded with the run, so a re-run prompts the coder alike."""
    timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """Wall-clock limit of one execution; past it the process and container are killed."""
    memory_mb: int = Field(default=256, ge=16, le=65536)
    """Memory limit (no swap beyond it)."""
    cpus: float = Field(default=1.0, gt=0, le=64)
    """CPU quota in cores."""
    pids: int = Field(default=64, ge=8, le=4096)
    """Most processes and threads at once (stops fork bombs)."""
    workdir_mb: int = Field(default=64, ge=1, le=4096)
    """Size of the tmpfs work directory (and of /tmp and /dev/shm); files there are memory."""
    tmpfs_inodes: int = Field(default=10_000, ge=64, le=1_000_000)
    """Most files and directories in each of the work dir, /tmp and /dev/shm."""
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
    pool_max: int = Field(default=4, ge=0, le=64)
    """The most warm containers kept ready when executions come back to back: each time
    they drain the pool it keeps one more ready, up to this, for two minutes."""
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

    @model_validator(mode="after")
    def _tmpfs_fits_in_memory(self) -> SandboxSettings:
        """Files in tmpfs are memory of the container: all of them must fit under its limit,
        with room left for the supervisor, or a full tmpfs kills it and the answer is lost."""
        mounts = len(TMPFS_MOUNTS)
        files_mb = mounts * self.workdir_mb
        inodes_mb = -(-mounts * self.tmpfs_inodes * INODE_KB // 1024)
        need = files_mb + inodes_mb + RESERVE_MB
        if need > self.memory_mb:
            msg = (
                f"memory_mb={self.memory_mb} is too small for the tmpfs mounts, whose files count "
                f"against it: {', '.join(TMPFS_MOUNTS)} hold up to {mounts} × "
                f"workdir_mb={self.workdir_mb} MB of files and {mounts} × "
                f"tmpfs_inodes={self.tmpfs_inodes:,} inodes (about {inodes_mb} MB), and the "
                f"supervisor needs {RESERVE_MB} MB besides: {need} MB in all. Raise memory_mb to "
                f"{need}, or lower workdir_mb or tmpfs_inodes"
            )
            raise ValueError(msg)
        return self

    @property
    def uid(self) -> int:
        """The numeric user id of ``user``."""
        return int(self.user.split(":")[0])

    @property
    def gid(self) -> int:
        """The numeric group id of ``user``."""
        return int(self.user.split(":")[1])
