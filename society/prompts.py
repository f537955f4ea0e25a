"""Every model request on the record: stored redacted and content-addressed as
``prompts/<sha256>.json`` in the run folder, named by hash from its usage message, so
replay can show what a model saw (``society replay RUN --prompt N``)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from society.redact import redact

__all__ = ["PROMPTS_DIR", "PromptStore", "load_prompt"]

PROMPTS_DIR = "prompts"


class PromptStore:
    """Writes each distinct request once (the same prompt twice is one file)."""

    def __init__(self, run_dir: Path) -> None:
        self.folder = run_dir / PROMPTS_DIR
        self._stored: set[str] = set()
        """Digests this store wrote or found: a repeat costs no file system call."""

    def record(self, request: Mapping[str, Any]) -> str:
        """Store ``request`` (redacted); returns its sha256."""
        text = json.dumps(redact(dict(request)), sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest in self._stored:
            return digest
        path = self.folder / f"{digest}.json"
        if not path.exists():  # another process of the run (a resumed one) may have it
            if not self._stored:
                self.folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text + "\n", encoding="utf-8")
            tmp.replace(path)
        self._stored.add(digest)
        return digest


def load_prompt(run_dir: Path, digest: str) -> dict[str, Any] | None:
    """The stored request ``digest`` of a run (None when the folder lacks it)."""
    path = run_dir / PROMPTS_DIR / f"{digest}.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
