"""`society eval side`: arms of evals run at different commits, side by side on the answers
all of them gave, each named with its commit; refused where the evals cannot be compared or
one arm comes twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from society.eval.results import EvalResults, Record, ResultsError
from society.eval.side import Source, side_by_side, source_of

SOCIETY = Path(sys.executable).parent / "society"


def results(arms: dict[str, list[bool]], commit: str, split: str | None = None) -> EvalResults:
    """An eval whose arm ``a`` passed case ``c{i}`` when ``arms[a][i]``."""
    records = [
        Record(
            case=f"c{i}",
            kind="span" if i % 2 else "arithmetic",
            arm=arm,
            passed=ok,
            status="succeeded",
            tokens_in=100,
        )
        for arm, passes in arms.items()
        for i, ok in enumerate(passes)
    ]
    return EvalResults(
        suite="tatqa-test",
        model="m",
        arms=list(arms),
        commit=commit,
        split=split,  # type: ignore[arg-type]
        records=records,
    )


def side(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(SOCIETY), "eval", "side", *args]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )


def test_arms_of_two_commits_stand_side_by_side_on_the_answers_both_gave(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    results({"society": [True] * 6, "loop": [False] * 6}, "aaaaaaa1234").save(old)
    results({"loop": [True, False, True, False, False]}, "bbbbbbb5678").save(new)
    done = side(tmp_path, str(old), str(new))
    assert done.returncode == 0, done.stderr
    shown = done.stdout
    assert "3 arms on the 5 answers all of them gave" in shown
    assert "loop (aaaaaaa)" in shown and "loop (bbbbbbb)" in shown
    assert "society (aaaaaaa)" in shown and "(1 answers left out)" in shown
    assert "6/6" not in shown and "5/5" in shown  # c5, answered by one eval only, is left out
    assert "2/5" in shown  # the new loop's passes
    assert "society (aaaaaaa) against loop (bbbbbbb): right on 3 it missed, missed 0" in shown
    assert "society (aaaaaaa) against loop (aaaaaaa): right on 5 it missed, missed 0" in shown


def test_a_file_can_give_some_of_its_arms(tmp_path: Path) -> None:
    path = tmp_path / "both.json"
    results({"direct": [True, True], "program": [False, False]}, "ccccccc").save(path)
    other = tmp_path / "other.json"
    results({"program": [True, False]}, "ddddddd").save(other)
    done = side(tmp_path, f"{path}:direct", str(other))
    assert done.returncode == 0, done.stderr
    assert "direct (ccccccc)" in done.stdout and "program (ccccccc)" not in done.stdout
    assert source_of(f"{path}:direct,program") == Source(path, ("direct", "program"))
    assert source_of(str(path)) == Source(path)
    wrong = side(tmp_path, f"{path}:vote", str(other))
    assert wrong.returncode == 2 and "no arm vote (it has direct, program)" in wrong.stderr


def test_evals_that_cannot_be_compared_or_that_repeat_an_arm_are_refused(tmp_path: Path) -> None:
    val = tmp_path / "val.json"
    train = tmp_path / "train.json"
    results({"society": [True]}, "aaaaaaa", "val").save(val)
    results({"loop": [True]}, "bbbbbbb", "train").save(train)
    split = side(tmp_path, str(val), str(train))
    assert split.returncode == 2 and "different splits (val and train)" in split.stderr
    again = tmp_path / "again.json"
    results({"society": [False]}, "aaaaaaa", "val").save(again)
    twice = side(tmp_path, str(val), str(again))
    assert twice.returncode == 2 and "merge them first" in twice.stderr
    alone = side(tmp_path, str(val))
    assert alone.returncode == 2 and "usage: society eval side" in alone.stderr


def test_an_eval_cut_short_may_come_first() -> None:
    """The first file's order is the table's; a later file's answers beyond it are left out
    (an eval stopped after 29 of 120, given first, raised ValueError on the 30th)."""
    short = results({"society": [True, False]}, "aaaaaaa")
    whole = results({"loop": [False, True, True, True]}, "bbbbbbb")
    merged = side_by_side([(Source(Path("a")), short), (Source(Path("b")), whole)])
    assert [(r.arm, r.case) for r in merged.results.records] == [
        ("society (aaaaaaa)", "c0"),
        ("society (aaaaaaa)", "c1"),
        ("loop (bbbbbbb)", "c0"),
        ("loop (bbbbbbb)", "c1"),
    ]
    assert merged.left_out == {"society (aaaaaaa)": 0, "loop (bbbbbbb)": 2}


def test_no_answer_in_common_is_said_rather_than_shown_as_empty_tables() -> None:
    a = results({"society": [True]}, "aaaaaaa")
    b = results({"loop": [True]}, "bbbbbbb").model_copy(
        update={"records": [Record(case="other", arm="loop", passed=True, status="succeeded")]}
    )
    with pytest.raises(ResultsError, match="no case was answered by every arm"):
        side_by_side([(Source(Path("a")), a), (Source(Path("b")), b)])


def test_code_alone_is_named_by_its_commit_and_makes_no_models_differ() -> None:
    model = results({"society": [True, False]}, "aaaaaaa1234")
    code = results({"table": [True, True]}, "bbbbbbb5678").model_copy(update={"model": "none"})
    other = results({"direct": [False, False]}, "ccccccc9012").model_copy(update={"model": "m2"})
    two = side_by_side([(Source(Path("a.json")), model), (Source(Path("b.json")), code)])
    assert two.results.arms == ["society (aaaaaaa)", "table (bbbbbbb)"]
    assert two.results.model == "m"
    three = side_by_side(
        [
            (Source(Path("a.json")), model),
            (Source(Path("b.json")), code),
            (Source(Path("c.json")), other),
        ]
    )
    assert three.results.arms == ["society (aaaaaaa, m)", "table (bbbbbbb)", "direct (ccccccc, m2)"]
