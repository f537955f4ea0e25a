"""Restoring artifacts from a log: the log's paths cannot steer files out of their folder."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import Artifact, ExecResult, Final
from society.run.artifacts import restore_artifacts

pytestmark = pytest.mark.timeout(30)

DATA = b"content"


def artifact(task: str, name: str) -> Artifact:
    digest = hashlib.sha256(DATA).hexdigest()
    return Artifact(name=name, path=f"artifacts/{task}/{name}", size=len(DATA), sha256=digest)


def ran(seq: int, task: str, name: str, data: bytes) -> LogRecord:
    """The log's record of a sandbox run of ``task`` that wrote ``name``."""
    files = {name: base64.b64encode(data).decode()}
    result = ExecResult(exit_code=0, stdout="", stderr="", wall_s=0.1, files=files)
    return LogRecord(
        seq=seq,
        subject="society.r1.exec",
        envelope=Envelope.new("r1", "coder/1", result, task_id=task),
    )


def test_only_plain_artifact_paths_are_restored(tmp_path: Path) -> None:
    tasks = {"t1": "kept.txt", "..": "climbs.txt", "t2": "esc\x1b[2J.txt", "t3": "new\nline"}
    records = [ran(i, task, name, DATA) for i, (task, name) in enumerate(tasks.items(), start=1)]
    final = Final(status="succeeded", artifacts=[artifact(t, n) for t, n in tasks.items()])
    run_dir = tmp_path / "run"
    assert restore_artifacts(records, final, run_dir) == ["artifacts/t1/kept.txt"]
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == [
        "run/artifacts/t1/kept.txt"
    ]


def test_a_level_candidates_file_is_restored_from_its_own_run(tmp_path: Path) -> None:
    # the task's two programs each wrote report.md; the final names the first one's, picked
    # as level with the kept one (`bus.verdicts.Level`), and the kept one ran last
    first, last = b"ratio 1.132", b"ratio 0.566"
    records = [ran(i, "compare", "report.md", data) for i, data in enumerate((first, last), 1)]
    picked = Artifact(
        name="report.md",
        path="artifacts/compare/level-1/report.md",
        size=len(first),
        sha256=hashlib.sha256(first).hexdigest(),
    )
    wrong_level = picked.model_copy(update={"path": "artifacts/compare/level-x/report.md"})
    final = Final(status="succeeded", artifacts=[picked, wrong_level])
    run_dir = tmp_path / "run"
    assert restore_artifacts(records, final, run_dir) == ["artifacts/compare/level-1/report.md"]
    assert (run_dir / picked.path).read_bytes() == first
