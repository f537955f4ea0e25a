"""The log reader's count of out-of-place lines: duplicated, reordered, from another run.
Each kind is one `LogAnomaly` naming how many and the first few lines; every line is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from bus import Envelope
from bus import payloads as p
from bus.envelope import subject_for
from bus.logfile import LogAnomaly, LogProblem, LogRecord, read_jsonl, write_jsonl

pytestmark = pytest.mark.timeout(30)


def chat(run: str, n: int) -> list[Envelope]:
    return [Envelope.new(run, "human/ada", p.Chat(text=f"hi {i}", by="ada")) for i in range(n)]


def write(path: Path, envs: list[Envelope], seqs: list[int] | None = None) -> Path:
    numbers = seqs if seqs is not None else list(range(1, len(envs) + 1))
    records = [
        LogRecord(seq=s, subject=subject_for(e), envelope=e)
        for s, e in zip(numbers, envs, strict=True)
    ]
    write_jsonl(records, path)
    return path


def anomalies(problems: list[LogProblem]) -> dict[str, LogAnomaly]:
    return {a.kind: a for a in problems if isinstance(a, LogAnomaly)}


def test_a_sound_log_has_none_and_names_its_run(tmp_path: Path) -> None:
    read = read_jsonl(write(tmp_path / "log.jsonl", chat("r", 5), seqs=[3, 4, 9, 10, 20]))
    assert read.problems == [] and len(read.records) == 5
    assert read.run_id == "r"


def test_an_envelope_stored_twice_under_another_seq_is_a_duplicate(tmp_path: Path) -> None:
    envs = chat("r", 3)
    path = write(tmp_path / "log.jsonl", [*envs, envs[1]])
    first, *rest = path.read_text().splitlines(keepends=True)
    path.write_text("".join([first, "\n", *rest]))  # a blank line 2 still counts
    read = read_jsonl(path)
    (dup,) = read.problems
    assert isinstance(dup, LogAnomaly)
    assert (dup.kind, dup.count, dup.lines, dup.line) == ("duplicated", 1, (5,), 5)
    assert len(read.records) == 4


def test_many_duplicates_name_the_first_five(tmp_path: Path) -> None:
    path = write(tmp_path / "log.jsonl", chat("r", 8))
    text = path.read_text()
    path.write_text(text + text)
    read = read_jsonl(path)
    dup = anomalies(read.problems)["duplicated"]
    assert dup.count == 8 and dup.lines == (9, 10, 11, 12, 13)
    assert str(dup) == (
        "8 lines duplicated (the same seq or message id as an earlier line): "
        "lines 9, 10, 11, 12, 13, …; kept in place"
    )
    assert set(anomalies(read.problems)) == {"duplicated"}  # a repeat is not also a reorder


def test_a_line_moved_far_counts_the_places_order_breaks(tmp_path: Path) -> None:
    read = read_jsonl(write(tmp_path / "log.jsonl", chat("r", 6), seqs=[1, 5, 2, 3, 4, 6]))
    (moved,) = read.problems
    assert isinstance(moved, LogAnomaly)
    assert (moved.kind, moved.count, moved.lines) == ("reordered", 1, (3,))
    assert [r.seq for r in read.records] == [1, 5, 2, 3, 4, 6]


def test_the_log_run_is_the_one_most_lines_belong_to(tmp_path: Path) -> None:
    stray, ours, other = chat("stray", 1), chat("ours", 4), chat("other", 1)
    read = read_jsonl(write(tmp_path / "log.jsonl", [*stray, *ours[:2], *other, *ours[2:]]))
    assert read.run_id == "ours"
    foreign = anomalies(read.problems)["other_run"]
    assert (foreign.count, foreign.lines) == (2, (1, 4))
    assert "the log's run is ours" in str(foreign)


def test_damage_comes_first_and_what_was_read_is_still_checked(tmp_path: Path) -> None:
    path = write(tmp_path / "log.jsonl", chat("r", 4), seqs=[1, 2, 2, 3])
    path.write_text(path.read_text() + "not json\n")
    seen: list[LogProblem] = []
    read = read_jsonl(path, on_problem=seen.append)
    assert read.stopped_at == 5
    assert seen == read.problems
    assert [type(x) for x in seen] == [LogProblem, LogAnomaly]
    assert str(seen[0]) == "line 5: the line is not JSON"
    assert anomalies(seen)["duplicated"].lines == (3,)
