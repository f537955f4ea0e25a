"""The supervisor's pure parts, on the host: output capping, names, and the shared framing.

Nothing here runs the supervisor itself: it kills every other process, so it refuses to run
anywhere but as PID 1 of a container (checked here too).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sandbox import protocol, supervisor
from sandbox.container import supervisor_source


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


def test_stub_and_source_compile() -> None:
    compile(supervisor.STUB, "<stub>", "exec")
    assert supervisor_source().startswith('"""The supervisor')


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
