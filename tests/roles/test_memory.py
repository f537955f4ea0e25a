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
