"""The loop baseline (scripted model, real sandbox): a program that fails a docstring example
is repaired, then resampled, and the first that passes is kept; a case with no usable
checks is answered once; limits hold and are recorded; the hidden tests never reach it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from society.eval.context import LoopSettings
from society.eval.humaneval import humaneval_suite, problems
from society.eval.runner import EvalSettings, run_eval
from society.eval.suite import Defaults, Suite
from society.models.spec import ModelSpec, ScriptedAnswer

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

WRONG = "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```"
RIGHT = (
    "```python\ndef has_close_elements(numbers, threshold):\n"
    "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n```"
)


def scripted(indexes: list[int], answers: dict[int, list[str]]) -> Suite:
    defaults = Defaults(models={"default": ModelSpec(provider="scripted")})
    suite = humaneval_suite(defaults=defaults)
    cases = []
    for i in indexes:
        script = {"loop": [ScriptedAnswer(answer=a) for a in answers[i]]}
        cases.append(suite.cases[i].model_copy(update={"script": script}))
    return suite.model_copy(update={"cases": cases})


async def run(
    suite: Suite, tmp_path: Path, loop: LoopSettings, seed: int = 0
) -> list[dict[str, object]]:
    settings = EvalSettings(arms=["loop"], runs_dir=tmp_path / "runs", loop=loop, seed=seed)
    console = Console(file=(tmp_path / "progress.txt").open("w"), width=120)
    _, where = await run_eval(suite, settings, console)
    return json.loads(where.read_text())["records"]  # type: ignore[no-any-return]


def calls_of(record: dict[str, object]) -> list[dict[str, object]]:
    folder = Path(str(record["folder"]))
    return [json.loads(line) for line in (folder / "calls.jsonl").read_text().splitlines()]


async def test_a_failing_program_is_repaired_then_resampled_and_the_passing_one_kept(
    tmp_path: Path,
) -> None:
    suite = scripted([0], {0: [WRONG, WRONG, WRONG, WRONG, RIGHT, WRONG]})
    (record,) = await run(suite, tmp_path, LoopSettings())
    assert record["passed"] and record["status"] == "succeeded" and record["calls"] == 5
    calls = calls_of(record)
    repairs = [c for c in calls if len(c["request"]["messages"]) > 2]  # type: ignore[index]
    assert len(repairs) == 2
    shown = repairs[0]["request"]["messages"][-1]["content"]  # type: ignore[index]
    assert "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) returned False" in shown
    samples = [c["request"]["create_args"] for c in calls[3:]]  # type: ignore[index]
    assert samples == [{"temperature": 0.8, "seed": 0}, {"temperature": 0.8, "seed": 1}]
    stages = json.loads((Path(str(record["folder"])) / "stages.json").read_text())
    assert stages["stages"] == ["first", "repair", "repair", "sample", "sample"]
    hidden = [ln.strip() for ln in problems()[0]["test"].splitlines() if "assert" in ln]
    for call in calls:
        text = json.dumps(call["request"])
        assert not any(h in text for h in hidden)  # the grader's tests never reach the loop


async def test_limits_hold_and_a_case_without_usable_checks_is_answered_once(
    tmp_path: Path,
) -> None:
    no_examples = next(i for i, p in enumerate(problems()) if p["task_id"] == "HumanEval/38")
    suite = scripted(
        [0, no_examples],
        {0: [WRONG] * 5, no_examples: ["```python\ndef decode_cyclic(s):\n    return s\n```"]},
    )
    loop = LoopSettings(repairs=1, samples=1, temperature=0.5)
    first, second = await run(suite, tmp_path, loop, seed=7)
    assert first["calls"] == 3 and not first["passed"] and first["status"] == "failed"
    assert "docstring example failed" in str(first["reason"])
    assert second["calls"] == 1 and second["status"] == "succeeded"
    samples = [c["request"]["create_args"] for c in calls_of(first)[2:]]  # type: ignore[index]
    assert samples == [{"temperature": 0.5, "seed": 7}]
