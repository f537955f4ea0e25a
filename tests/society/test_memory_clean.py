"""Long-term memory stays clean: lessons come only from the goal's work (never from a model
outage, an abort or how a run ended), carry their goal, run and message, are kept once,
and every recall is a typed message in the log; ``society memory`` shows and edits them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bus.payloads import Lesson, Recall
from roles.memory import Memory

from .conftest import RunYaml, payloads
from .humans import Proc

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]

GOAL = "Name the largest prime below one hundred."
LEARNS = f"""
name: learns
goal: {{text: {GOAL}}}
models: {{default: {{provider: scripted}}}}
budgets: {{replans: 0}}
roles:
  critic: {{drift_threshold: 0}}
  researcher: {{max_parse_tries: 1, corpus: [corpus]}}
  # the researchers' plan, as it is (a first plan of one program, or a goal check, would
  # put the coder's work in the run: this run is about what the researchers' work teaches)
  planner: {{one_task_first: false}}
  manager: {{goal_check: false}}
script:
  planner:
    - answer:
        success_criteria: [a prime is named]
        tasks:
          - {{id: check, role: researcher, description: Check 97 has no divisor but 1 and itself., outputs: [verdict]}}
          - {{id: name, role: researcher, description: Name the largest prime below 100., outputs: [answer], depends_on: [check]}}
  researcher:
    - match: 'Attempt 1 failed: model call failed'
      answer: {{outputs: {{verdict: "97 is prime"}}, sources: [primes.md]}}
    - match: 'Your task \\(name\\)'
      answer: {{outputs: {{}}}}
    - match: 'Your task \\(name\\)'
      answer: {{outputs: {{}}}}
"""
RECALLS = f"""
name: recalls
goal: {{text: {GOAL}}}
models: {{default: {{provider: scripted}}}}
roles:
  planner: {{one_task_first: false}}  # the planner plans (and recalls) for the first plan too
  researcher: {{corpus: [corpus]}}
script:
  planner:
    - answer:
        success_criteria: [a prime is named]
        tasks:
          - {{id: name, role: researcher, description: Name the largest prime below 100., outputs: [answer]}}
  researcher:
    - answer: {{outputs: {{answer: "97"}}, sources: [primes.md]}}  # cites what it read
"""


async def test_lessons_come_from_the_work_only_once_each_and_every_recall_is_logged(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    memory_dir = tmp_path / "memory"
    first = await run_yaml(LEARNS, memory_dir=memory_dir)
    assert first.final is not None and first.final.status != "succeeded"
    # "check" failed once because the scripted model ran out (an outage: nothing to learn),
    # then "name" failed by its work twice (one lesson, kept once); how the run ended: nothing.
    lessons = [p for p in payloads(first, "lesson") if isinstance(p, Lesson)]
    assert len(lessons) == 1 and "Name the largest prime" in lessons[0].text
    memory = Memory(memory_dir)
    try:
        [kept] = memory.entries()
    finally:
        memory.close()
    assert (kept.goal, kept.run_id, kept.source) == (GOAL, first.run_id, lessons[0].source[0])
    assert not payloads(first, "recall")  # nothing of other runs to recall yet

    again = tmp_path / "recalls.yaml"
    again.write_text(RECALLS)
    second = await run_yaml(again, memory_dir=memory_dir)
    assert second.exit_code == 0, second.final
    recalled = [p for p in payloads(second, "recall") if isinstance(p, Recall)]
    assert {r.role for r in recalled} == {"manager", "planner", "researcher"}
    planner = [r for r in recalled if r.role == "planner"]
    assert len(planner) == 1 and [x.id for x in planner[0].lessons] == [kept.id]
    assert not payloads(second, "lesson")  # a clean success teaches nothing new


ABORTED = f"""
name: aborted
goal: {{text: {GOAL}}}
models: {{default: {{provider: scripted}}}}
budgets: {{calls: 1}}
roles: {{planner: {{one_task_first: false}}}}  # the planner's call spends the budget
script:
  planner:
    - answer:
        success_criteria: [a prime is named]
        tasks:
          - {{id: name, role: researcher, description: Name the largest prime below 100., outputs: [answer]}}
"""


async def test_a_run_stopped_by_its_budget_teaches_nothing(
    run_yaml: RunYaml, tmp_path: Path
) -> None:
    memory_dir = tmp_path / "memory"
    outcome = await run_yaml(ABORTED, memory_dir=memory_dir)
    assert outcome.final is not None and outcome.final.status == "budget_exhausted"
    assert not payloads(outcome, "lesson")
    assert Memory(memory_dir).count() == 0


async def test_the_memory_commands_list_show_forget_and_export(tmp_path: Path) -> None:
    memory = Memory(tmp_path)
    ids = [
        memory.add("Check \x1b[2Jthe bounds first.", kind="lesson", task_kind="coder", goal=GOAL),
        memory.add("Cite the source of every number.", kind="feedback", task_kind="feedback"),
    ]
    memory.close()
    where = ("--memory-dir", str(tmp_path))
    listed = await Proc.start("memory", "list", *where)
    assert await listed.finish() == 0, listed.transcript
    assert "2 in" in listed.transcript and "Cite the source" in listed.transcript
    assert "\x1b" not in listed.transcript  # shown escaped
    shown = await Proc.start("memory", "show", str(ids[0]), *where)
    assert await shown.finish() == 0
    assert GOAL in shown.transcript and "\\x1b[2J" in shown.transcript
    exported = await Proc.start("memory", "export", *where)
    assert await exported.finish() == 0
    rows = [json.loads(line) for line in exported.transcript.splitlines()]
    assert [r["id"] for r in rows] == ids and rows[0]["goal"] == GOAL
    unknown = await Proc.start("memory", "forget", "999", *where)
    assert await unknown.finish() == 2 and "no lesson 999" in unknown.transcript
    forgot = await Proc.start("memory", "forget", str(ids[0]), *where)
    assert await forgot.finish() == 0
    memory = Memory(tmp_path)
    try:
        assert [e.id for e in memory.entries()] == [ids[1]]
    finally:
        memory.close()
