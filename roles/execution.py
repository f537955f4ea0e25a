"""Running code, as a role sees it: the `CodeRunner` seam and the one result type.

A run's outcome is `sandbox.ExecutionResult` everywhere: the sandbox returns it, the
coder reads it, replay serves it. On the bus it travels as the `ExecResult` payload
(files base64, size-capped); `to_payload` and `from_payload` are the only translations,
and give back exactly what they got (a re-run must phrase the coder's feedback exactly as
the recording did).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Protocol

from bus.payloads import ExecResult
from sandbox.result import ExecutionResult

__all__ = [
    "CodeRunner",
    "ExecutionResult",
    "from_payload",
    "notes_text",
    "to_payload",
]


class CodeRunner(Protocol):
    """Runs code in isolation (the sandbox, or replay of recorded results)."""

    async def execute(
        self, code: str, files: Mapping[str, bytes] | None = None, timeout_s: float | None = None
    ) -> ExecutionResult:
        """Run ``code`` with ``files`` in its working folder."""
        ...


def to_payload(run: ExecutionResult, file_cap: int = 256_000) -> ExecResult:
    """The result as logged: files up to ``file_cap`` bytes each, base64."""
    return ExecResult(
        exit_code=run.exit_code,
        stdout=run.stdout,
        stderr=run.stderr,
        stdout_truncated=run.stdout_truncated,
        stderr_truncated=run.stderr_truncated,
        wall_s=round(run.wall_s, 6),
        timed_out=run.timed_out,
        oom_killed=run.oom_killed,
        files={
            name: base64.b64encode(data).decode()
            for name, data in run.files.items()
            if len(data) <= file_cap
        },
        files_dropped=list(run.files_dropped),
        notes=list(run.notes),
        error=run.error,
    )


def from_payload(logged: ExecResult) -> ExecutionResult:
    """The result a log recorded, as the sandbox returned it (files the log kept)."""
    return ExecutionResult(
        exit_code=logged.exit_code,
        stdout=logged.stdout,
        stderr=logged.stderr,
        stdout_truncated=logged.stdout_truncated,
        stderr_truncated=logged.stderr_truncated,
        wall_s=logged.wall_s,
        timed_out=logged.timed_out,
        oom_killed=logged.oom_killed,
        files={k: base64.b64decode(v) for k, v in logged.files.items()},
        files_dropped=list(logged.files_dropped),
        notes=list(logged.notes),
        error=logged.error,
    )


def notes_text(run: ExecutionResult) -> str:
    """The sandbox's notes as the coder's model reads them ("" when there are none)."""
    if not run.notes:
        return ""
    return "\nThe sandbox also reports:\n" + "\n".join(f"- {note}" for note in run.notes)
