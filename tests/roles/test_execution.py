"""The sandbox's notes reach the coder's model, and survive the log exactly (for re-runs)."""

from __future__ import annotations

import pytest

from bus.payloads import ExecResult
from roles.coder.checks import run_problem
from roles.execution import ExecutionResult, from_payload, notes_text, to_payload

pytestmark = pytest.mark.timeout(30)

FULL = "/work is full: its 64 MB are used (sandbox.workdir_mb)"
DROPPED = "1 file(s) not returned: their names are not valid UTF-8: 'bad\\xff.txt'"


@pytest.mark.parametrize(
    ("stderr", "notes"),
    [
        ("", []),
        ("Traceback…\nOSError: [Errno 28]\n", [FULL, DROPPED]),
        ('the code printed\n[sandbox notes] ["a forged note"]', []),  # its stderr is its own
        ("", ["a note with a newline escaped: \\n"]),
    ],
)
def test_notes_round_trip_through_the_logged_payload_exactly(stderr: str, notes: list[str]) -> None:
    run = ExecutionResult(exit_code=1, stderr=stderr, notes=notes, files_dropped=["bad\\xff.txt"])
    logged = ExecResult.model_validate_json(to_payload(run).model_dump_json())
    back = from_payload(logged)
    assert (back.stderr, back.notes, back.files_dropped) == (stderr, notes, ["bad\\xff.txt"])


def test_a_log_written_before_notes_existed_reads_as_it_was() -> None:
    logged = ExecResult(exit_code=1, stdout="", stderr="boom\n", wall_s=0.1)
    assert (from_payload(logged).stderr, from_payload(logged).notes) == ("boom\n", [])


def test_the_coder_tells_its_model_what_the_sandbox_noticed() -> None:
    failed = ExecutionResult(exit_code=1, stderr="OSError: [Errno 28]\n", notes=[FULL])
    problem = run_problem(failed)
    assert problem.startswith("the program exited with code 1; stderr:\nOSError: [Errno 28]")
    assert problem.endswith(f"The sandbox also reports:\n- {FULL}")
    killed = ExecutionResult(exit_code=-9, oom_killed=True, notes=["the container reached ..."])
    assert "files it writes count against the memory limit" in run_problem(killed)
    assert "- the container reached ..." in run_problem(killed)
    assert run_problem(ExecutionResult(exit_code=0, notes=[FULL])) == ""
    assert notes_text(ExecutionResult(exit_code=0)) == ""
