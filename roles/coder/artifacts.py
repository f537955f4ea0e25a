"""The files a task's program wrote, kept as the run's artifacts: under
``artifacts/<task>/`` in the run folder, named, sized and hashed in the task's result (the
files the program protocol reads and writes itself are not artifacts)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from bus.payloads import Artifact

__all__ = ["RESERVED", "save_artifacts"]

RESERVED = frozenset({"inputs.json", "outputs.json"})
"""The protocol's own files (`roles.program`): never artifacts."""


def save_artifacts(run_dir: Path, task_id: str, files: Mapping[str, bytes]) -> list[Artifact]:
    """Write ``files`` under the run folder's ``artifacts/<task_id>/`` and describe them
    (names with a folder or a leading dot are left out)."""
    folder = run_dir / "artifacts" / task_id
    artifacts = []
    for name, data in sorted(files.items()):
        if name in RESERVED or "/" in name or name.startswith("."):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        artifacts.append(
            Artifact(
                name=name,
                path=str(Path("artifacts") / task_id / name),
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
            )
        )
    return artifacts
