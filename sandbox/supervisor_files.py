"""The supervisor's files: inputs written in, outputs streamed out, and notes on what it saw.

Part of the supervisor: standard library only, runs on the image's python3 (3.9 or newer).
Whatever the code left in its work dir, the answer must still get out: a name that is not
UTF-8 or holds control characters (an escape sequence, a newline) is dropped and shown
escaped, a file that cannot be read is dropped rather than failing the answer, and a full
tmpfs or one out of inodes is named, so the coder learns why its program failed instead of
"the sandbox failed".
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from typing import Any

from sandbox.supervisor_wire import read_exactly, send, write_all

__all__ = [
    "Dropped",
    "name_problem",
    "safe_name",
    "send_outputs",
    "shown_name",
    "tmpfs_notes",
    "tmpfs_used",
    "write_input",
]

LISTED = 100
"""At most this many dropped names are listed (the notes count them all)."""
SHOWN = 200
"""At most this many characters of one dropped name are shown."""
EXAMPLES = 3
"""Names quoted in a note."""
FULL = 1 << 16
"""A tmpfs with less free space than this is reported full."""

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""Control characters (C0, DEL, C1), line separators and bidi overrides: never in a name."""

REASONS = {
    "encoding": "their names are not valid UTF-8",
    "control": "their names hold control characters (such as an escape or a newline)",
    "size": "each is over the {max_file:,}-byte cap on one file (sandbox.max_file_bytes)",
    "total": "they would take the files past {max_files_bytes:,} bytes (sandbox.max_files_bytes)",
    "count": "only {max_files:,} files are returned (sandbox.max_files)",
    "unreadable": "they could not be read",
}
"""Why files were not returned, in the order the notes give them."""


def safe_name(name: str) -> str:
    """Refuse names that are absolute, empty, or climb out of the work dir."""
    parts = name.split("/")
    if not name or "\x00" in name or any(part in ("", ".", "..") for part in parts):
        msg = f"bad file name {name!r}"
        raise ValueError(msg)
    return name


def write_input(workdir: str, name: str, mode: int, data: bytes) -> None:
    """Create one input file in the work dir."""
    path = os.path.join(workdir, safe_name(name))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(path, flags, mode & 0o755 or 0o644)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def name_problem(name: str) -> str | None:
    """Why a name found on disk cannot be returned ("encoding", "control"), or None."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "encoding"
    return "control" if UNSAFE.search(name) else None


def shown_name(name: str) -> str:
    """A name as safe text: bytes that are not UTF-8 and control characters become escapes."""
    text = UNSAFE.sub(_escape, os.fsencode(name).decode("utf-8", "backslashreplace"))
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    code = ord(char)
    if char in "\n\r\t":
        return repr(char)[1:-1]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class Dropped:
    """The files not returned, by reason: all counted, the first few named."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.by_reason: dict[str, list[str]] = {}

    def add(self, name: str, reason: str) -> None:
        """Count one dropped file."""
        shown = shown_name(name)
        if len(self.names) < LISTED:
            self.names.append(shown)
        self.by_reason.setdefault(reason, []).append(shown)

    def notes(self, config: dict[str, Any]) -> list[str]:
        """One note per reason: how many files, why, and a few of their names."""
        notes = []
        for reason, template in REASONS.items():
            names = self.by_reason.get(reason, [])
            if names:
                quoted = ", ".join(f"'{name}'" for name in names[:EXAMPLES])
                more = f" and {len(names) - EXAMPLES:,} more" if len(names) > EXAMPLES else ""
                why = template.format(**config)
                notes.append(f"{len(names):,} file(s) not returned: {why}: {quoted}{more}")
        return notes


def send_outputs(workdir: str, inputs: dict[str, str], config: dict[str, Any]) -> Dropped:
    """Stream the files the code wrote or changed; return what was dropped and why."""
    dropped = Dropped()
    count = total = 0
    for root, dirs, names in os.walk(workdir):
        dirs.sort()
        for base in sorted(names):
            path = os.path.join(root, base)
            name = os.path.relpath(path, workdir)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink, a fifo we cannot open, or gone
            data = b""
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    continue
                problem = _problem(name, info.st_size, count, total, config)
                if problem is None:
                    data = read_exactly(fd, info.st_size) or b""
            except OSError:
                problem = "unreadable"
            finally:
                os.close(fd)
            if problem is None and inputs.get(name) == hashlib.sha256(data).hexdigest():
                continue  # an input file the code left as it was
            if problem is not None:
                dropped.add(name, problem)
                continue
            count += 1
            total += len(data)
            send({"kind": "file", "name": name, "mode": info.st_mode & 0o777}, data)
    return dropped


def _problem(name: str, size: int, count: int, total: int, config: dict[str, Any]) -> str | None:
    """Why a file cannot be returned (a key of REASONS), or None."""
    problem = name_problem(name)
    if problem is None and size > config["max_file"]:
        return "size"
    if problem is None and total + size > config["max_files_bytes"]:
        return "total"
    if problem is None and count >= config["max_files"]:
        return "count"
    return problem


def tmpfs_used(mounts: list[str]) -> int:
    """Bytes the files in the tmpfs mounts take (they count against the memory limit)."""
    used = 0
    for path in mounts:
        try:
            info = os.statvfs(path)
        except OSError:
            continue
        used += (info.f_blocks - info.f_bfree) * info.f_frsize
    return used


def tmpfs_notes(mounts: list[str]) -> list[str]:
    """A note for each tmpfs that is full or out of inodes when the run ends."""
    notes = []
    for path in mounts:
        try:
            info = os.statvfs(path)
        except OSError:
            continue
        if info.f_files and info.f_ffree == 0:
            notes.append(
                f"{path} ran out of inodes: it holds at most {info.f_files:,} files and "
                "directories (sandbox.tmpfs_inodes), so creating more fails with "
                "'No space left on device'"
            )
        elif info.f_bavail * info.f_frsize < FULL:
            size_mb = info.f_blocks * info.f_frsize // (1 << 20)
            notes.append(
                f"{path} is full: its {size_mb} MB are used (sandbox.workdir_mb), so writing "
                "more fails with 'No space left on device'"
            )
    return notes
