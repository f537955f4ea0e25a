"""The eval's arms in one shape and the instrument around them: baselines asked the way a
user would ask (no file the case does not have; every given value named), a new arm
registered in a test is run and graded without touching the runner, repeats report their
spread, a split suite runs one half, and evals of different halves are not compared."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from society.errors import RunError
from society.eval.arms import arm_names, register
from society.eval.baselines import final_answer, prompt_of
from society.eval.context import Answered, CaseContext
from society.eval.graders import Submission
from society.eval.report import mcnemar, render_results
from society.eval.results import EvalResults, Record, ResultsError, load_results
from society.eval.runner import EvalSettings, current_commit, run_eval, select_cases
from society.eval.suite import Case, Suite, load_suite

ROOT = Path(__file__).resolve().parents[3]
DEV = load_suite(ROOT / "evals" / "dev.yaml")
SOCIETY = Path(sys.executable).parent / "society"


def text_of(suite: Suite, case: Case, arm: str) -> str:
    return "\n".join(str(m.content) for m in prompt_of(suite, case, arm))  # type: ignore[arg-type]


@pytest.mark.parametrize("arm", ["direct", "program"])
def test_a_case_without_inputs_names_no_inputs_file(arm: str) -> None:
    for case in (c for c in DEV.cases if not c.inputs and not c.documents):
        shown = text_of(DEV, case, arm)
        assert "inputs.json" not in shown and "file" not in shown.lower(), case.id
        assert case.goal in shown


def test_a_program_is_given_every_input_as_a_value_it_defines() -> None:
    for case in (c for c in DEV.cases if c.inputs):
        shown = text_of(DEV, case, "program")
        assert "inputs.json" not in shown, case.id
        for key in case.inputs:
            assert f"\n{key} = " in shown, (case.id, key)
    sales = text_of(DEV, DEV.case("csv-region-revenue"), "program")
    assert 'sales = """\\\nregion,product,units,unit_price\nNorth,widget,12,2.50' in sales


def test_a_document_is_given_as_its_text_and_the_key_never() -> None:
    case = DEV.case("shipping-zone-c")
    shown = text_of(DEV, case, "direct")
    assert "Weights are rounded **up**" in shown
    assert case.key is not None and case.key.solution.strip()[:40] not in shown
    assert "17.4" not in shown  # the graded value


def test_a_program_over_documents_writes_their_values_in_and_reads_no_file() -> None:
    case = DEV.case("shipping-zone-c")
    program, direct = text_of(DEV, case, "program"), text_of(DEV, case, "direct")
    assert "Weights are rounded **up**" in program
    assert "working directory" not in program and "reads no file" in program
    assert "Python assignments" in program and "Python assignments" not in direct


def test_a_worked_answer_is_graded_by_its_final_answer_line() -> None:
    worked = "12 * 3 = 36, and 36 + 4 = 40.\n\n**Answer:** 40 apples"
    assert final_answer(worked) == "40 apples"
    assert final_answer("Answer: 7\nso FINAL ANSWER: 8") == "8"
    assert final_answer("just 9") == "just 9"


def test_one_half_of_a_split_suite_is_selected_and_an_unsplit_suite_refuses() -> None:
    val = select_cases(DEV, [], "val")
    assert val and all(c.split == "val" for c in val)
    assert {c.id for c in val} | {c.id for c in select_cases(DEV, [], "train")} == {
        c.id for c in DEV.cases
    }
    with pytest.raises(RunError, match="not in the val split"):
        select_cases(DEV, ["fibonacci-40"], "val")
    plain = load_suite(Path(__file__).parent / "suites" / "scripted.yaml")
    with pytest.raises(RunError, match="not split"):
        select_cases(plain, [], "train")


def tiny_suite() -> Suite:
    return Suite.model_validate(
        {
            "name": "tiny",
            "defaults": {"models": {"default": {"provider": "scripted"}}},
            "split": {"seed": 1},
            "cases": [
                {
                    "id": f"c{i}",
                    "kind": "number-theory",
                    "goal": f"What is {i} + {i}?",
                    "graders": [{"kind": "number", "value": 2 * i}],
                }
                for i in range(1, 5)
            ],
        }
    )


async def guesser(case: Case, cx: CaseContext) -> Answered:
    """Right on every case on the first repeat, on c1 alone afterwards."""
    i = int(case.id[1:])
    right = cx.repeat == 0 or i == 1
    return Answered(Submission(f"{2 * i if right else 2 * i + 1}"), "succeeded", calls=1)


@pytest.mark.docker
@pytest.mark.timeout(300)
async def test_a_registered_arm_is_run_graded_and_its_repeats_spread(tmp_path: Path) -> None:
    register("guesser", guesser)
    assert "guesser" in arm_names()
    settings = EvalSettings(arms=["guesser"], repeat=3, runs_dir=tmp_path, split="train", seed=5)
    results, where = await run_eval(tiny_suite(), settings, Console(file=io.StringIO()))
    assert {r.arm for r in results.records} == {"guesser"}
    train = [c.id for c in tiny_suite().cases if c.split == "train"]
    assert len(results.records) == 3 * len(train)
    assert all(r.passed == (r.repeat == 0 or r.case == "c1") for r in results.records)
    (totals,) = results.totals()
    assert totals.rates[0] == 1.0 and totals.spread is not None and totals.spread > 0
    low, high = totals.interval or (0.0, 0.0)
    assert low < totals.pass_rate < high
    saved = json.loads(where.read_text())
    assert saved["split"] == "train" and saved["seed"] == 5
    assert saved["totals"][0]["spread"] == totals.spread
    shown = io.StringIO()
    render_results(Console(file=shown, width=160), load_results(where))
    table = shown.getvalue()
    assert "95% interval" in table and "number-theory" in table


def test_evals_of_different_halves_are_not_compared(tmp_path: Path) -> None:
    def saved(name: str, split: str | None) -> Path:
        path = tmp_path / f"{name}.json"
        EvalResults(suite="dev", model="m", arms=["program"], split=split).save(path)  # type: ignore[arg-type]
        return path

    def compare(a: Path, b: Path) -> subprocess.CompletedProcess[str]:
        args = [str(SOCIETY), "eval", "compare", str(a), str(b)]
        return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)

    done = compare(saved("a", "train"), saved("b", "val"))
    assert done.returncode == 2 and "different splits (train and val)" in done.stderr
    same = compare(saved("c", "val"), saved("d", "val"))
    assert same.returncode == 0, same.stderr


def test_mcnemar_says_when_a_paired_difference_is_beyond_chance() -> None:
    assert mcnemar(0, 0) == 1.0
    assert mcnemar(1, 0) == 1.0  # one case that changed is no evidence
    assert mcnemar(3, 1) == 0.625
    assert mcnemar(10, 0) < 0.01


def test_evals_of_one_suite_and_split_run_apart_merge_into_one(tmp_path: Path) -> None:
    def saved(name: str, arm: str, split: str) -> Path:
        path = tmp_path / f"{name}.json"
        record = Record(case="c1", arm=arm, passed=arm == "society", status="succeeded")
        EvalResults(
            suite="dev",
            model="m",
            arms=[arm],
            split=split,
            records=[record],  # type: ignore[arg-type]
        ).save(path)
        return path

    def merge(*paths: Path) -> subprocess.CompletedProcess[str]:
        args = [str(SOCIETY), "eval", "merge", *map(str, paths), "--out", str(tmp_path / "m.json")]
        return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)

    done = merge(saved("a", "society", "val"), saved("b", "program", "val"))
    assert done.returncode == 0, done.stderr
    whole = load_results(tmp_path / "m.json")
    assert whole.arms == ["society", "program"] and len(whole.records) == 2
    assert [t.passed for t in whole.totals()] == [1, 0]
    other = merge(saved("c", "society", "val"), saved("d", "loop", "train"))
    assert other.returncode == 2 and "differ in split" in other.stderr
    twice = merge(saved("e", "society", "val"), saved("f", "society", "val"))
    assert twice.returncode == 2 and "is in two evals" in twice.stderr


@pytest.mark.docker
@pytest.mark.timeout(300)
async def test_an_eval_cut_short_resumes_where_it_stopped_and_takes_other_arms(
    tmp_path: Path,
) -> None:
    asked: list[tuple[str, str]] = []

    def counting(name: str) -> None:
        async def arm(case: Case, cx: CaseContext) -> Answered:
            asked.append((case.id, name))
            return await guesser(case, cx)

        register(name, arm)

    counting("first")
    counting("second")
    out = tmp_path / "results.json"
    settings = EvalSettings(arms=["first"], runs_dir=tmp_path, out=out, only=["c1", "c2"])
    await run_eval(tiny_suite(), settings, Console(file=io.StringIO()))
    cut = load_results(out)
    cut.records = cut.records[:1]  # cut short after its first case
    cut.finished = None
    cut.save(out)
    asked.clear()
    again = EvalSettings(arms=["first", "second"], runs_dir=tmp_path, out=out, resume=True)
    shown = io.StringIO()
    _, where = await run_eval(tiny_suite(), again, Console(file=shown, width=200))
    assert where == out and ("c1", "first") not in asked  # answered before: kept, not asked
    assert sorted(asked) == sorted(
        [
            ("c2", "first"),
            *((f"c{i}", "second") for i in range(1, 5)),
            ("c3", "first"),
            ("c4", "first"),
        ]
    )
    whole = load_results(out)
    assert whole.arms == ["first", "second"] and len(whole.records) == 8
    assert whole.started == cut.started and cut.folder in whole.folder
    assert "7 answers; 1 kept from" in shown.getvalue()
    assert "first 4/4 right · second 4/4 right" in shown.getvalue()  # the kept one counts
    # another commit's or seed's results are never carried on
    other = EvalSettings(arms=["first"], runs_dir=tmp_path, out=out, resume=True, seed=9)
    with pytest.raises(ResultsError, match="made with seed 0, this eval has 9"):
        await run_eval(tiny_suite(), other, Console(file=io.StringIO()))
    assert len(load_results(out).records) == 8  # nothing lost


def test_resume_without_the_results_to_carry_on_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    args = [str(SOCIETY), "eval", str(ROOT / "evals" / "dev.yaml"), "--resume"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "--resume carries on the results at --out" in done.stderr


def test_the_commit_recorded_is_the_answering_codes_and_says_when_it_is_changed(
    tmp_path: Path,
) -> None:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    assert current_commit(tmp_path) == ""  # not a checkout
    git("init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", "code.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "--short", "HEAD")
    assert current_commit(tmp_path) == head
    (tmp_path / "notes.txt").write_text("untracked is not a change to the code\n")
    assert current_commit(tmp_path) == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert current_commit(tmp_path) == f"{head}+dirty"
    assert current_commit() == current_commit(ROOT)  # the package's checkout, not the cwd's
