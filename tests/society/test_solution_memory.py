"""Verified solutions as memory, on scripted answers: a verified run keeps its program (read
from its whole log when it ends); a later goal like it gets that program as a worked example (a `Recall` in its log); an
unrelated goal recalls nothing; an eval's graded answers become solutions only when the
graders passed them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bus.payloads import Recall
from roles.memory import SOLUTION_KIND, Memory
from society.eval.learned import GRADED, learn_solutions
from society.eval.results import EvalResults, Record

from .conftest import RunYaml, payloads
from .test_real_work import DAYS, DAYS_OTHER, coded

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(180)]

EXAMPLE = "A verified solution of a similar goal"
PRIME = """
print(max(n for n in range(2, 100) if all(n % d for d in range(2, n))))
"""
PRIME_OTHER = """
primes = [n for n in range(2, 100) if all(n % p for p in range(2, int(n ** 0.5) + 1))]
print(primes[-1])
"""


SPEC = """
    - instructions: without seeing it
      answer: {kind: count}"""
"""The verifier's statement, from the goal alone (asked before any program)."""
CHECK = "independent check of a teammate"
"""What the second program's request says."""


def scenario(goal: str, inputs: str, *coder: tuple[str | None, str]) -> str:
    """A goal (its first plan: one program for it, no planner call) and the coder's answers:
    the verifier's statement, then (pattern or None, program), the more specific first."""
    answers = coded(*coder)
    return (
        f"""
name: remembers
goal:
  text: {goal}
  inputs: {inputs}
models: {{default: {{provider: scripted}}}}
roles: {{coder: {{solutions: 1}}}}
sandbox: {{timeout_s: 20, pool_size: 1}}
budgets: {{wall_s: 120, replans: 0}}
script:
  coder:{SPEC}
"""
        + "\n".join(answers)
        + "\n"
    )


DAYS_GOAL = "How many days are there from the start date to the end date?"
LIKE_IT = "How many days are there between the start date and the end date of the trip?"


def solutions(memory_dir: Path) -> list[str]:
    memory = Memory(memory_dir)
    try:
        return [e.text for e in memory.entries(kind=SOLUTION_KIND)]
    finally:
        memory.close()


async def test_a_verified_program_is_recalled_for_a_goal_like_it_and_not_for_another(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    memory_dir = tmp_path / "memory"
    dates = '{start: "2024-03-14", end: "2025-01-27"}'
    days = ((CHECK, DAYS_OTHER), (None, DAYS))  # a second program agrees with the first
    first = await run_yaml(scenario(DAYS_GOAL, dates, *days), memory_dir=memory_dir)
    assert first.final is not None and first.final.status == "succeeded", first.final
    [kept] = solutions(memory_dir)
    assert kept.startswith(f"Goal: {DAYS_GOAL}\nGiven values: start, end\n")
    assert 'date.fromisoformat(i["end"])' in kept and "society_prelude" not in kept
    assert not [r for r in payloads(first, "recall") if r.role == "coder"]

    # a goal like it: the coder's programs need the worked example in their prompts
    trip = '{start: "2025-06-01", end: "2025-06-15"}'
    like = tmp_path / "like.yaml"
    both = f"(?s)(?=.*{EXAMPLE})(?=.*{CHECK})"
    like.write_text(scenario(LIKE_IT, trip, (both, DAYS_OTHER), (EXAMPLE, DAYS)))
    second = await run_yaml(like, memory_dir=memory_dir)
    assert second.final is not None and second.final.answer == "14 days", second.final
    [recall] = [r for r in payloads(second, "recall") if r.role == "coder"]
    assert isinstance(recall, Recall) and [x.text for x in recall.lessons] == [kept]

    # a goal that shares words with it but not its matter recalls nothing (below the
    # relevance threshold, though BM25 finds it): given the example, the program prints 0
    unrelated = "Which prime below one hundred is the largest, and how many digits are there in it?"
    other = tmp_path / "other.yaml"
    other.write_text(
        scenario(unrelated, "{}", (EXAMPLE, "print(0)"), (CHECK, PRIME_OTHER), (None, PRIME))
    )
    third = await run_yaml(other, memory_dir=memory_dir)
    assert third.final is not None and third.final.answer == "97", third.final
    assert not [r for r in payloads(third, "recall") if r.role == "coder"]


async def test_an_evals_answers_become_solutions_only_when_the_graders_passed_them(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    dates = '{start: "2024-03-14", end: "2025-01-27"}'
    days = scenario(DAYS_GOAL, dates, (CHECK, DAYS_OTHER), (None, DAYS))
    run = await run_yaml(days, memory_dir=tmp_path / "own")
    assert run.log_path is not None
    folder = str(run.log_path.parent)
    base = {"kind": "dates", "arm": "society", "status": "succeeded", "folder": folder}
    results = EvalResults(
        suite="dev",
        model="scripted",
        arms=["society"],
        split="train",
        records=[
            Record(case="right", passed=True, run_id="right-r0", **base),  # type: ignore[arg-type]
            Record(case="wrong", passed=False, run_id="wrong-r0", **base),  # type: ignore[arg-type]
        ],
    )
    path = tmp_path / "results.json"
    results.save(path)
    memory = Memory(tmp_path / "learned")
    try:
        learned = learn_solutions(path, memory)
        [entry] = memory.entries(kind=SOLUTION_KIND)
    finally:
        memory.close()
    assert (learned.added, learned.skipped, learned.split) == (["right-r0"], {}, "train")
    assert entry.goal == DAYS_GOAL and entry.run_id == "right-r0"
    assert GRADED in entry.text and "fromisoformat" in entry.text


async def test_an_eval_with_memory_gives_each_case_a_copy_to_recall_from(tmp_path: Path) -> None:
    from rich.console import Console

    from roles.solutions import Solution
    from society.eval.runner import EvalSettings, run_eval
    from society.eval.suite import Suite

    learned = tmp_path / "learned"
    memory = Memory(learned)
    example = Solution(
        DAYS_GOAL, DAYS, ("the suite's graders passed its answer",), ("start", "end")
    )
    memory.add(example.text(), kind=SOLUTION_KIND, task_kind="coder", goal=DAYS_GOAL)
    memory.close()
    before = (learned / "memory.sqlite3").read_bytes()
    plan = {
        "success_criteria": ["the days are counted"],
        "tasks": [
            {"id": "solve", "role": "coder", "description": "Answer.", "outputs": ["answer"]}
        ],
    }
    program = "```python\n" + DAYS.strip() + "\n```"
    trip = Suite.model_validate(
        {
            "name": "trips",
            "defaults": {
                "models": {"default": {"provider": "scripted"}},
                "budgets": {"wall_s": 60, "calls": 10},
                "sandbox": {"timeout_s": 20, "pool_size": 1},
            },
            "cases": [
                {
                    "id": "trip",
                    "goal": LIKE_IT,
                    "inputs": {"start": "2025-06-01", "end": "2025-06-15"},
                    "graders": [{"kind": "number", "value": 14}],
                    # answered only when the worked example is in the coder's prompt
                    "script": {
                        "planner": [{"answer": plan}],
                        "coder": [{"match": EXAMPLE, "answer": program}],
                    },
                }
            ],
            "base_dir": tmp_path,
        }
    )
    settings = EvalSettings(arms=["society"], runs_dir=tmp_path / "runs", memory_from=learned)
    console = Console(file=(tmp_path / "progress.txt").open("w"), width=120)
    results, _ = await run_eval(trip, settings, console)
    [record] = results.records
    assert record.passed, record
    assert results.memory == f"per-case from {learned}"
    assert (learned / "memory.sqlite3").read_bytes() == before  # each case had a copy
