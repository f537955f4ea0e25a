"""The coder's strategies, end to end inside the role but without Docker or NATS: a scripted
model, the package's mock code runner running the test's own programs on this machine, and a
bus that only records. Two programs that agree and pass the verifier's check give verdicts
the rule calls verified; a second candidate that disagrees leaves the answer unverified; the
table picks each task's strategy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bus import ConnectOptions, Envelope
from bus.deliverable import Deliverable
from bus.payloads import TaskAssignment, TaskResult, TaskSpec, Usage
from roles.coder.role import Coder, strategy_for
from roles.coder.votes import repeatable
from roles.context import RoleContext, RoleDeps
from roles.model_access import ModelAccess
from roles.settings import CoderSettings
from roles.verifier.agreement import quoted_in
from roles.verifier.rule import verdict_of
from sandbox.mock import MockRunner, local_python
from society.models.scripted import ScriptedChatCompletionClient
from society.models.spec import ScriptedAnswer
from tests.roles.recorder import Recorder

pytestmark = pytest.mark.timeout(60)

GOAL = "How many primes are there below 100?"
SIEVE = "print(sum(all(n % d for d in range(2, n)) for n in range(2, 100)))"
COUNTED = "count = 0\nfor n in range(2, 100):\n    if all(n % d for d in range(2, int(n ** 0.5) + 1)):\n        count += 1\nprint(count)"
WRONG = "print(26)"


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def coder(answers: list[ScriptedAnswer], tmp_path: Path, **settings: Any) -> Coder:
    client = ScriptedChatCompletionClient(answers, name="coder")
    deps = RoleDeps(
        model=ModelAccess(client=client, model="scripted"), code=MockRunner(local_python)
    )
    ctx = RoleContext(
        "r1",
        ConnectOptions.from_url("nats://127.0.0.1:1"),  # never connected
        CoderSettings(**settings),
        run_dir=tmp_path,
        deps=deps,
    )
    role = Coder(ctx)
    role.bus = Recorder()  # type: ignore[assignment]
    return role


def assignment(outputs: list[str], purpose: str = "work") -> TaskAssignment:
    task = TaskSpec(id="solve", role="coder", description=GOAL, outputs=outputs)
    task = task.model_copy(update={"purpose": purpose})
    return TaskAssignment(task=task, goal=GOAL)


async def work(role: Coder, job: TaskAssignment) -> TaskResult:
    env = Envelope.new("r1", "manager/0", job, task_id=job.task.id)
    return await role.work(env, job)


SPEC = ScriptedAnswer(instructions="without seeing it", answer={"kind": "count"})


PROSE = ScriptedAnswer(match="Work it out in words", answer="Counting them: 25.\nAnswer: 25")


async def test_a_program_and_a_prose_answer_that_agree_are_verified(tmp_path: Path) -> None:
    role = coder(
        [SPEC, ScriptedAnswer(answer=fenced(SIEVE)), PROSE], tmp_path, cross_check=True, prose=True
    )
    result = await work(role, assignment(["answer"]))
    assert result.outputs == {"answer": 25}
    kinds = {v.kind: (v.passed, v.independent) for v in result.verdicts}
    assert kinds == {"views": (True, True), "property": (True, True)}
    assert result.checks == [v.what for v in result.verdicts]  # derived, not carried
    assert verdict_of("25", ["solve"], {"solve": result.verdicts}).verified
    # no call beyond the two views and the verifier's: its statement, one program, one prose
    calls = [p for p in role.bus.sent if isinstance(p, Usage) and p.kind == "model"]  # type: ignore[attr-defined]
    assert len(calls) == 3 and len(role.runner.executed) == 2  # type: ignore[attr-defined]
    assert result.confidence is not None and result.confidence.views == ["program", "prose"]


async def test_two_programs_that_agree_and_pass_the_check_are_verified(tmp_path: Path) -> None:
    role = coder(
        [SPEC, ScriptedAnswer(answer=fenced(SIEVE)), ScriptedAnswer(answer=fenced(COUNTED))],
        tmp_path,
        cross_check=True,
        prose=False,
        plain=False,
    )
    result = await work(role, assignment(["answer"]))
    assert result.outputs == {"answer": 25}
    kinds = {v.kind: v.passed for v in result.verdicts}
    assert kinds == {"agreement": True, "property": True}
    assert verdict_of("25", ["solve"], {"solve": result.verdicts}).verified


async def test_a_second_candidate_that_disagrees_leaves_it_unverified(tmp_path: Path) -> None:
    answers = [SPEC, *(ScriptedAnswer(answer=fenced(c)) for c in (SIEVE, WRONG, "print(24)"))]
    role = coder(answers, tmp_path, cross_check=True, candidate_attempts=1, prose=False)
    result = await work(role, assignment(["answer"]))
    agreement = next(v for v in result.verdicts if v.kind == "agreement")
    assert not agreement.passed
    assert not verdict_of("25", ["solve"], {"solve": result.verdicts}).verified


async def test_one_program_with_checks_off_gives_no_verdict(tmp_path: Path) -> None:
    role = coder([ScriptedAnswer(answer=fenced(SIEVE))], tmp_path, cross_check=False)
    result = await work(role, assignment(["answer"]))
    assert result.outputs == {"answer": 25} and result.verdicts == []
    assert len(role.runner.executed) == 1  # type: ignore[attr-defined]
    verdict = verdict_of("25", ["solve"], {"solve": result.verdicts})
    assert not verdict.verified
    assert "no check written without seeing the answer passed it" in verdict.checks


def test_the_table_picks_each_tasks_strategy() -> None:
    on, off = CoderSettings(cross_check=True), CoderSettings(cross_check=False)
    function = assignment(["answer"]).model_copy(
        update={"deliverable": Deliverable(function="f", stub="def f():\n    pass\n")}
    )
    assert strategy_for(function, on).name == "function"
    assert strategy_for(assignment(["independent_answer"], "goal_check"), on).name == "goal_check"
    assert strategy_for(assignment(["answer"]), on).name == "select"
    assert strategy_for(assignment(["count"]), on).name == "vote"
    assert strategy_for(assignment(["answer"]), off).name == "once"


async def test_a_goal_check_whose_program_failed_every_fix_is_drawn_again(tmp_path: Path) -> None:
    """Live 1.5B quickstarts: the goal check's sieve failed every fix, and the plan's right
    answer was left with no independent one to agree with."""
    failing = "flags = [True] * 100\nprint(flags[100])"
    answers = [ScriptedAnswer(answer=fenced(c)) for c in (failing, SIEVE, COUNTED)]
    role = coder(answers, tmp_path, cross_check=True, max_attempts=1)
    result = await work(role, assignment(["independent_answer"], "goal_check"))
    assert result.outputs == {"independent_answer": 25}
    assert {v.kind: v.passed for v in result.verdicts} == {"goal_check": True, "agreement": True}
    assert len(role.runner.executed) == 3  # type: ignore[attr-defined]


async def test_a_goal_check_that_fails_twice_leaves_no_independent_answer(tmp_path: Path) -> None:
    failing = "flags = [True] * 100\nprint(flags[100])"
    answers = [ScriptedAnswer(answer=fenced(c)) for c in (failing, failing.replace("100]", "101]"))]
    role = coder(answers, tmp_path, cross_check=True, max_attempts=1)
    result = await work(role, assignment(["independent_answer"], "goal_check"))
    assert result.status == "done" and result.outputs == {"independent_answer": ""}
    assert "no independent answer" in result.summary and "IndexError" in result.summary


def test_only_the_goals_own_values_are_numbers_an_answer_may_repeat() -> None:
    """The goal's limit is; a count an earlier task computed is not (a report stating only
    the values it was given has computed none, and needs views to agree on it)."""
    job = assignment(["answer"]).model_copy(
        update={"inputs": {"limit": 10000, "prime_count": 1229}, "goal_values": ["limit"]}
    )
    assert repeatable(job) == quoted_in(GOAL) | {10000.0}
