"""`society train` on scripted models: the coder's scripted answers depend on its
instructions (a candidate that has the learned rule answers right), so training has
something to find; the reflection model is scripted too. A candidate worse on val is never
adopted, one better is; a person's remark reaches the reflection prompt; a killed training
resumes without running a scored case again."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from roles.coder.instructions import SYSTEM
from society.eval.suite import Suite
from society.learning.train import TrainSettings, adopt, train
from society.models.factory import ModelFactory
from society.models.spec import ModelSpec, ScriptedAnswer
from society.run.prompt_set import ValRow

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(600)]

RULE = "LEARNED-RULE"
REMARK = "REMARK-add-them-do-not-subtract"
SPEC = {"instructions": "without seeing it", "answer": {"kind": "amount"}}
"""The verifier's statement, from the goal alone (its instructions are not trained here)."""
CHECK = "independent check of a teammate"
"""What the second program's request says (the coder draws two programs that must agree)."""


def program(expr: str) -> str:
    return f"```python\ntotal = {expr}\nprint(total)\n```"


def second(expr: str) -> str:
    """Another computation of ``expr`` (not the same code): it agrees with `program`."""
    return f"```python\nvalues = [{expr}]\nresult = 0\nfor v in values:\n    result += v\nprint(result)\n```"


def script(with_rule: str, without: str, delay_s: float = 0.0) -> dict[str, Any]:
    """The live path (the first plan is one program for the goal, no planner call): the
    verifier's statement, then two programs that agree; the coder answers ``with_rule`` when
    its instructions hold the rule, else ``without``."""
    return {
        "coder": [
            {**SPEC, "delay_s": delay_s},
            {"instructions": RULE, "match": CHECK, "answer": second(with_rule)},
            {"match": CHECK, "answer": second(without)},
            {"instructions": RULE, "answer": program(with_rule)},
            {"answer": program(without)},
        ],
    }


def case(
    case_id: str, a: int, b: int, split: str, flipped: bool = False, **more: Any
) -> dict[str, Any]:
    right, wrong = "a + b", "a - b"
    rule, plain = (wrong, right) if flipped else (right, wrong)
    return {
        "id": case_id,
        "goal": "What is a plus b?",
        "inputs": {"a": a, "b": b},
        "graders": [{"kind": "number", "value": a + b}],
        "split": split,
        "script": script(rule, plain, more.pop("delay_s", 0.0)),
        **more,
    }


def suite_doc(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The suite file's content: scripted models, small budgets."""
    defaults = {
        "models": {"default": {"provider": "scripted"}},
        "budgets": {"wall_s": 60, "calls": 10},
        "sandbox": {"timeout_s": 20, "pool_size": 1},
    }
    return {"name": "sums", "defaults": defaults, "cases": cases}


def suite(cases: list[dict[str, Any]], tmp_path: Path) -> Suite:
    return Suite.model_validate({**suite_doc(cases), "base_dir": tmp_path})


def reflection() -> Any:
    """A scripted reflection model: it proposes the rule only when shown the remark."""
    proposed = f"```\n{SYSTEM}\n{RULE}: add the given numbers.\n```"
    answers = [ScriptedAnswer(match=REMARK, answer=proposed)]
    factory = ModelFactory({"reflection": ModelSpec(provider="scripted")}, {"reflector": answers})
    return factory.build("reflection", "reflector")


async def trained(tmp_path: Path, val_flipped: bool) -> Any:
    sums = suite(
        [
            case("rated", 2, 3, "train", remark=REMARK),  # from a person's rating
            case("plain", 4, 1, "train"),
            case("v1", 5, 2, "val", val_flipped),
            case("v2", 7, 1, "val", val_flipped),
        ],
        tmp_path,
    )
    settings = TrainSettings(
        train_cases=[c for c in sums.cases if c.split == "train"],
        val_cases=[c for c in sums.cases if c.split == "val"],
        suite=sums,
        folder=tmp_path / "training",
        reflection=reflection(),
        components=("coder",),
        budget=8,
        minibatch=2,
        pareto=2,
    )
    console = Console(file=(tmp_path / "progress.txt").open("w"), width=120)
    return await train(settings, console), settings.folder


def test_adoption_needs_more_right_and_no_more_false_successes() -> None:
    before = ValRow(cases=10, right=5, false_successes=1)
    assert adopt(before, ValRow(cases=10, right=6, false_successes=1))[0]
    assert not adopt(before, ValRow(cases=10, right=5, false_successes=0))[0]
    assert not adopt(before, ValRow(cases=10, right=4, false_successes=0))[0]
    assert not adopt(before, ValRow(cases=10, right=7, false_successes=2))[0]
    assert not adopt(before, ValRow(cases=9, right=7, false_successes=0))[0]


async def test_a_candidate_better_on_train_but_worse_on_val_is_not_adopted(
    tmp_path: Path,
) -> None:
    report, folder = await trained(tmp_path, val_flipped=True)
    assert RULE in report.best["coder"]  # training found the rule on train...
    assert report.before is not None and report.after is not None
    assert (report.before.right, report.after.right) == (2, 0)  # ...which is wrong on val
    assert not report.adopted and "on val" in report.why
    # the person's remark reached the reflection model's prompt
    [reflected] = [json.loads(line) for line in (folder / "reflections.jsonl").open()]
    assert REMARK in reflected["prompts"]["coder"]


async def test_a_candidate_better_on_val_is_adopted_and_records_its_table(tmp_path: Path) -> None:
    report, _ = await trained(tmp_path, val_flipped=False)
    assert report.adopted, report.why
    assert report.before is not None and report.after is not None
    assert (report.before.right, report.after.right) == (0, 2)
    made = report.prompt_set.made
    assert made.val_before == report.before and made.val_after == report.after
    assert RULE in report.prompt_set.instructions["coder"] and report.prompt_set.id


def test_a_killed_training_resumes_without_running_a_scored_case_again(tmp_path: Path) -> None:
    cases = [
        # each takes 10 s: the kill comes while the second runs, right after the first
        case("one", 2, 3, "train", delay_s=10),
        case("two", 4, 1, "train", delay_s=10),
        case("v1", 5, 2, "val"),
    ]
    path = tmp_path / "sums.yaml"
    path.write_text(yaml.safe_dump(suite_doc(cases)))
    folder = tmp_path / "training"
    command = [
        sys.executable,
        "-m",
        "society.cli",
        "train",
        str(path),
        "--dir",
        str(folder),
        "--budget",
        "2",
        "--front",
        "2",
        "--components",
        "coder",
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    first = subprocess.Popen(command, env=env, start_new_session=True, cwd=tmp_path)
    scores = folder / "scores.jsonl"
    deadline = time.monotonic() + 240
    while not (scores.is_file() and scores.read_text().strip()) and first.poll() is None:
        assert time.monotonic() < deadline, "the first case was never scored"
        time.sleep(0.5)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=60)
    [kept] = [json.loads(line)["case"] for line in scores.read_text().splitlines()]

    second = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=400
    )
    assert second.returncode == 1, second.stdout + second.stderr  # nothing better: refused
    said = " ".join(second.stdout.split())
    assert "resuming from" in said and "1 case runs already scored" in said
    assert "nothing changed" in said
    lines = [json.loads(line)["case"] for line in scores.read_text().splitlines()]
    assert lines[0] == kept and sorted(lines) == ["one", "two"]  # kept was not run again


RUN = f"""
name: prompted
goal: {{text: What is a plus b?, inputs: {{a: 2, b: 3}}}}
models: {{default: {{provider: scripted}}}}
sandbox: {{timeout_s: 20, pool_size: 1}}
budgets: {{wall_s: 60}}
script:
  coder: {json.dumps(script("a + b", "a - b")["coder"])}
"""


async def test_a_run_records_its_prompt_set_and_reruns_identical(
    nats_url: str, tmp_path: Path
) -> None:
    from bus.logfile import read_jsonl
    from bus.payloads import Goal
    from society.replay.rerun import rerun
    from society.replay.source import read_local
    from society.run.prompt_set import PromptSet
    from society.run.runner import RunOptions

    prompts = PromptSet(instructions={"coder": f"{SYSTEM}\n{RULE}: add them."}).with_id()
    prompts.save(tmp_path / "prompts.json")
    (tmp_path / "prompted.yaml").write_text(RUN)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-m",
            "society.cli",
            "run",
            "prompted.yaml",
            "--prompts",
            "prompts.json",
            "--runs-dir",
            "runs",
            "--run-id",
            "prompted-1",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = tmp_path / "runs" / "prompted-1" / "log.jsonl"
    goal = next(
        r.envelope.payload
        for r in read_jsonl(log).records
        if r.envelope and isinstance(r.envelope.payload, Goal)
    )
    assert goal.scenario is not None and goal.scenario["prompt_set"] == prompts.id
    final = [
        r.envelope.payload
        for r in read_jsonl(log).records
        if r.envelope and r.envelope.payload.type == "final"
    ]
    assert final[-1].answer == "5"  # the set's instructions reached the coder
    options = RunOptions(nats_url=nats_url, runs_dir=tmp_path / "reruns", live=False)
    report = await rerun(read_local(log, scratch=tmp_path / "scratch"), options)
    assert report.divergence is None, report.divergence
    assert report.outcome.final is not None and report.outcome.final.answer == "5"
