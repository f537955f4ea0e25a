"""Long-term memory: lessons persist across runs; a run recalls only other runs' lessons."""

from __future__ import annotations

from pathlib import Path

from roles.memory import Memory


def test_a_run_recalls_the_lessons_of_other_runs_only(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    memory.add("check the sieve bounds before counting primes", kind="lesson", run_id="old")
    memory.add("check the sieve input is an integer", kind="lesson", run_id="now")
    memory.close()
    again = Memory(tmp_path)  # persisted in the folder
    try:
        assert len(again.search("sieve primes check", 5)) == 2
        hits = again.search("sieve primes check", 5, before_run="now")
        assert [h.text for h in hits] == ["check the sieve bounds before counting primes"]
    finally:
        again.close()


def test_a_lesson_equal_to_one_kept_is_not_stored_twice(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    try:
        first = memory.add(
            "A coder task like 'count primes' failed: boom. Check this cause first.",
            kind="lesson",
            task_kind="coder",
            run_id="r1",
            source="m1",
            goal="count primes",
        )
        again = memory.add(
            "A coder task like 'count primes' failed: boom! Check this cause first.",
            kind="lesson",
            task_kind="coder",
            run_id="r2",
        )
        other = memory.add("Reviewers want sources cited.", kind="lesson", task_kind="coder")
        as_feedback = memory.add(
            "A coder task like 'count primes' failed: boom. Check this cause first.",
            kind="feedback",
            task_kind="coder",
        )
        assert first is not None and other is not None and as_feedback is not None
        assert again is None
        kept = memory.get(first)
        assert kept is not None
        assert (kept.goal, kept.run_id, kept.source) == ("count primes", "r1", "m1")
        assert [e.id for e in memory.entries()] == [as_feedback, other, first]
        assert memory.forget(other) and not memory.forget(other)
        assert memory.get(other) is None and memory.count() == 2
        assert memory.search("count primes cause", 3)[0].id == first
    finally:
        memory.close()


def test_a_memory_written_before_lessons_named_their_goal_still_opens(tmp_path: Path) -> None:
    import sqlite3

    db = sqlite3.connect(tmp_path / "memory.sqlite3")
    db.execute(
        "CREATE VIRTUAL TABLE lessons USING fts5("
        "text, kind, task_kind, run_id UNINDEXED, source UNINDEXED, created UNINDEXED)"
    )
    db.execute(
        "INSERT INTO lessons VALUES ('old lesson on sieves', 'lesson', 'coder', 'r0', 'm0', 1)"
    )
    db.commit()
    db.close()
    memory = Memory(tmp_path)
    try:
        [entry] = memory.entries()
        assert (entry.text, entry.goal, entry.run_id) == ("old lesson on sieves", "", "r0")
        assert memory.search("sieves", 1)[0].id == entry.id
    finally:
        memory.close()
