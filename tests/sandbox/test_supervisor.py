"""The supervisor's pure parts, on the host: output capping, names, and the shared framing.

Nothing here runs the supervisor itself: it kills every other process, so it refuses to run
anywhere but as PID 1 of a container (checked here too).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from importlib import resources

import pytest

from sandbox import protocol, supervisor, supervisor_files
from sandbox.container import SUPERVISOR_MODULES, supervisor_source


def test_capture_keeps_everything_under_the_cap() -> None:
    capture = supervisor.Capture(1000)
    for _ in range(10):
        capture.feed(b"0123456789")
    assert capture.text() == ("0123456789" * 10, False)


def test_capture_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    capture = supervisor.Capture(1000)
    capture.feed(b"H" * 750)
    for _ in range(1000):
        capture.feed(b"m" * 1000)
    capture.feed(b"T" * 250)
    text, cut = capture.text()
    assert cut
    assert capture.total == 750 + 1_000_000 + 250
    assert text.startswith("H" * 750)
    assert text.endswith("T" * 250)
    assert "[... 1000000 bytes cut by the sandbox ...]" in text


def test_capture_exactly_at_the_cap_is_not_cut() -> None:
    capture = supervisor.Capture(1024)
    capture.feed(b"x" * 1024)
    assert capture.text() == ("x" * 1024, False)


@pytest.mark.parametrize("name", ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a\x00b"])
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="bad file name"):
        supervisor.safe_name(name)


def test_host_and_supervisor_agree_on_the_framing() -> None:
    read, write = os.pipe()
    try:
        os.write(write, protocol.encode({"kind": "file", "name": "é.txt"}, b"\x00data"))
        assert supervisor.receive(1 << 20, fd=read) == (
            {"kind": "file", "name": "é.txt"},
            b"\x00data",
        )
        supervisor.send({"kind": "result", "stdout": "ü"}, b"blob", fd=write)
        prefix = os.read(read, protocol.PREFIX.size)
        head_len, blob_len = protocol.PREFIX.unpack(prefix)
        head = protocol.decode_header(os.read(read, head_len))
        assert head == {"kind": "result", "stdout": "ü"}
        assert os.read(read, blob_len) == b"blob"
    finally:
        os.close(read)
        os.close(write)


def test_stub_and_source_compile_for_the_oldest_python_supported() -> None:
    compile(supervisor.STUB, "<stub>", "exec")
    compile(supervisor_source(), "<supervisor>", "exec")
    for name in SUPERVISOR_MODULES:
        source = resources.files("sandbox").joinpath(f"{name}.py").read_text(encoding="utf-8")
        assert repr(source) in supervisor_source()
        ast.parse(source, feature_version=(3, 9))


@pytest.mark.parametrize(
    ("raw", "problem", "shown"),
    [
        (b"plain.txt", None, "plain.txt"),
        ("é ✓.txt".encode(), None, "é ✓.txt"),
        (b"bad\xff.txt", "encoding", "bad\\xff.txt"),
        (b"a\x1b[2Jb", "control", "a\\x1b[2Jb"),
        (b"two\nlines", "control", "two\\nlines"),
        (b"del\x7f", "control", "del\\x7f"),
        ("c1\x9bx".encode(), "control", "c1\\x9bx"),
        ("rtl\u202etxt.exe".encode(), "control", "rtl\\u202etxt.exe"),
        (b"dir\x07/f", "control", "dir\\x07/f"),
    ],
)
def test_names_that_cannot_be_returned_are_named_and_escaped(
    raw: bytes, problem: str | None, shown: str
) -> None:
    name = os.fsdecode(raw)  # as os.walk gives it: undecodable bytes as surrogates
    assert supervisor_files.name_problem(name) == problem
    assert supervisor_files.shown_name(name) == shown
    shown.encode("utf-8")  # always valid UTF-8 for the JSON header


def test_dropped_files_are_counted_by_reason_and_listed_up_to_a_cap() -> None:
    dropped = supervisor_files.Dropped()
    for i in range(supervisor_files.LISTED + 50):
        dropped.add(f"f{i}", "count")
    dropped.add(os.fsdecode(b"x\xfe"), "encoding")
    config = {"max_file": 10, "max_files_bytes": 100, "max_files": 1000}
    assert len(dropped.names) == supervisor_files.LISTED
    assert dropped.notes(config) == [
        "1 file(s) not returned: their names are not valid UTF-8: 'x\\xfe'",
        "150 file(s) not returned: only 1,000 files are returned (sandbox.max_files): "
        "'f0', 'f1', 'f2' and 147 more",
    ]


def test_supervisor_refuses_to_run_outside_a_container() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", supervisor_source(), "{}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "only as PID 1" in done.stderr
