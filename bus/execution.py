"""The payloads that put code on the record: what the coder asked the sandbox to run, what
it returned (both recorded for replay, which serves them back instead of running Docker),
and the files a task produced."""

from __future__ import annotations

from typing import ClassVar, Literal

from bus.payload_base import _Model, _Payload
from bus.subjects import Channel

__all__ = ["Artifact", "ExecRequest", "ExecResult"]


class Artifact(_Model):
    """A file produced by a task, stored under the run folder."""

    name: str
    path: str
    """Path relative to the run folder."""
    size: int
    sha256: str


class ExecRequest(_Payload):
    """The coder asks the sandbox to run code (recorded for replay)."""

    CHANNEL: ClassVar[Channel] = Channel.EXEC
    type: Literal["exec_request"] = "exec_request"
    code: str
    language: Literal["python"] = "python"
    input_files: list[str] = []
    timeout_s: float


class ExecResult(_Payload):
    """What a sandbox execution returned (recorded for replay)."""

    CHANNEL: ClassVar[Channel] = Channel.EXEC
    type: Literal["exec_result"] = "exec_result"
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    wall_s: float
    timed_out: bool = False
    oom_killed: bool = False
    files: dict[str, str] = {}
    """Files the code wrote: name -> base64 content (size-capped)."""
    files_dropped: list[str] = []
    """Files the code wrote that exceeded the size cap."""
    notes: list[str] = []
    """What the sandbox noticed (a full disk, dropped file names, the memory limit)."""
    error: str | None = None
    """Set when the sandbox itself failed (not the code)."""
