"""Docker labels on every sandbox container: the project, the run, and the owning pool.

Labels are how leftovers are found and removed (``gc``), so every container carries all three.
"""

from __future__ import annotations

import os
import re
import socket

from sandbox.errors import SandboxInputError

__all__ = [
    "OWNER",
    "POOL",
    "PROJECT",
    "RUN",
    "check_label",
    "container_labels",
    "label_filters",
    "owner",
]

PROJECT = "org.society.sandbox"
"""Present (value ``1``) on every container the sandbox makes."""
RUN = "org.society.run"
"""The run (or caller-chosen label) the container serves."""
POOL = "org.society.sandbox.pool"
"""The unique id of the pool that made the container."""
OWNER = "org.society.sandbox.owner"
"""``<host>:<pid>`` of the process that made the container (to find orphans of a killed one)."""


def owner() -> str:
    """This process, as the `OWNER` label names it."""
    return f"{socket.gethostname()}:{os.getpid()}"


_LABEL = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def check_label(label: str) -> str:
    """Return ``label`` if it is 1 to 128 letters, digits or ``_.-`` (run ids fit)."""
    if not _LABEL.fullmatch(label):
        msg = f"sandbox label must match {_LABEL.pattern}, not {label!r}"
        raise SandboxInputError(msg)
    return label


def container_labels(run: str, pool: str) -> dict[str, str]:
    """The labels of one container."""
    return {PROJECT: "1", RUN: run, POOL: pool, OWNER: owner()}


def label_filters(run: str | None = None, pool: str | None = None) -> list[str]:
    """Docker ``label`` filters selecting sandbox containers, narrowed by run and/or pool."""
    filters = [f"{PROJECT}=1"]
    if run is not None:
        filters.append(f"{RUN}={check_label(run)}")
    if pool is not None:
        filters.append(f"{POOL}={pool}")
    return filters
