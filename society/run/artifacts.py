"""Artifacts of a run whose coder worked on another machine, restored from its log.

A coder writes a task's files under its own run folder; with `society worker` that is
on the worker's machine. The log carries each sandbox execution's files (up to the size
cap), so the runner restores the final message's artifacts into its run folder from
there, checking each against the size and sha256 the coder reported. A path that is not
``artifacts/<task>/<name>`` or ``artifacts/<task>/level-<n>/<name>`` (a candidate level with
the kept one, `bus.verdicts.Level`) with plain parts (no ``..``, no control characters) is
skipped: the log is data, and its paths must not steer where files land.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from bus.logfile import LogRecord
from bus.payloads import ExecResult, Final
from society.view.terminal_text import safe_line

__all__ = ["restore_artifacts"]


def restore_artifacts(records: Iterable[LogRecord], final: Final, run_dir: Path) -> list[str]:
    """Write the final's artifacts missing from ``run_dir``; returns the paths written."""
    files: dict[tuple[str, str], list[str]] = {}  # (task id, name) -> base64 of every run
    for record in records:
        env = record.envelope
        if env is not None and isinstance(env.payload, ExecResult) and env.task_id:
            for name, content in env.payload.files.items():
                files.setdefault((env.task_id, name), []).append(content)
    written = []
    for artifact in final.artifacts:
        target = run_dir / artifact.path
        parts = Path(artifact.path).parts
        if target.exists() or not _plain(parts) or parts[-1] != artifact.name:
            continue
        # the latest run whose file is the one reported (a task's candidates write alike)
        for encoded in reversed(files.get((parts[1], artifact.name), [])):
            try:
                data = base64.b64decode(encoded, validate=True)
            except binascii.Error:
                continue
            if len(data) == artifact.size and hashlib.sha256(data).hexdigest() == artifact.sha256:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                written.append(artifact.path)
                break
    return written


def _plain(parts: tuple[str, ...]) -> bool:
    """``("artifacts", task, name)`` or ``("artifacts", task, "level-<n>", name)`` with no
    part that climbs or holds a control character."""
    level = len(parts) == 4 and re.fullmatch(r"level-[1-9][0-9]*", parts[2]) is not None
    return (
        (len(parts) == 3 or level)
        and parts[0] == "artifacts"
        and all(part not in (".", "..") and safe_line(part) == part for part in parts)
    )
