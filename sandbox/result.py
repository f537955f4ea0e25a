"""What one execution returned: the code's outcome, or the sandbox's own failure."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ExecutionResult"]


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """The outcome of ``Sandbox.execute``.

    ``exit_code`` is the code's exit status (negative: killed by that signal), or None when
    it did not finish (timed out) or never ran (``error`` set). ``error`` is set only when
    the sandbox itself failed; the code's own failures show in ``exit_code`` and ``stderr``.
    """

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    wall_s: float = 0.0
    """Seconds the code ran (inside the container), or the host's wait when the sandbox failed."""
    timed_out: bool = False
    oom_killed: bool = False
    files: dict[str, bytes] = field(default_factory=dict)
    """Files the code wrote or changed in its work dir (relative path -> content)."""
    files_dropped: list[str] = field(default_factory=list)
    """Files the code wrote that were not returned (over a cap, or a name that is not UTF-8
    or holds control characters, shown escaped); at most the first 100."""
    notes: list[str] = field(default_factory=list)
    """What the sandbox saw that the code may not have said: the memory limit reached, a tmpfs
    full or out of inodes, files not returned and why. Plain text, one fact each."""
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the code ran to completion with exit status 0."""
        return self.error is None and self.exit_code == 0 and not self.timed_out

    @classmethod
    def failure(
        cls, error: str, wall_s: float = 0.0, *, timed_out: bool = False, oom_killed: bool = False
    ) -> ExecutionResult:
        """A result for an execution the sandbox could not carry out."""
        return cls(
            exit_code=None, wall_s=wall_s, timed_out=timed_out, oom_killed=oom_killed, error=error
        )
