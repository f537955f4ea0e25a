"""Reading a log file to replay: the run it belongs to, even when a stray line comes first."""

from __future__ import annotations

from pathlib import Path

import pytest

from society.replay.source import read_local

from .logs import RUN, envelopes, write

pytestmark = pytest.mark.timeout(30)


def test_the_run_of_a_log_is_its_main_run_not_a_stray_first_line(tmp_path: Path) -> None:
    stray = envelopes(run="stray-run")[0]
    log = write(tmp_path / "log.jsonl", [stray, *envelopes()])
    seen: list[object] = []
    src = read_local(log, scratch=tmp_path, on_problem=seen.append)
    assert src.run_id == RUN
    assert len(src.records) == 13
    assert [str(p) for p in src.problems] == [str(p) for p in seen]
    assert "1 line from another run (the log's run is synthetic-run): line 1" in str(seen[0])
