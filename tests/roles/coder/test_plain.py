"""The plain view (`roles.coder.plain`): a program asked as a person asks it is the second
view with the coder's ``plain`` on. Agreeing with the team's program it verifies the answer
with no call beyond the two and the verifier's; the same computation again is no second
view; a trivial value agreed by the two programs still does not pass; the request holds the
goal and its values as the program's first lines, none of the team's conventions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bus.payloads import TaskAssignment, TaskSpec, Usage
from roles.coder.plain import PLAIN_SYSTEM, plain_request
from roles.coder.quotation import views_for
from roles.coder.select import PLAIN_FIRST, PROGRAMS, select
from roles.verifier.rule import verdict_of
from society.models.spec import ScriptedAnswer
from tests.roles.coder.test_select import Draws, cand, positive
from tests.roles.coder.test_strategies import COUNTED, SIEVE, SPEC, assignment, coder, fenced, work

pytestmark = pytest.mark.timeout(60)

PLAIN = "You write one complete Python 3 program that computes the answer to the user's"


def plain(code: str) -> ScriptedAnswer:
    return ScriptedAnswer(instructions=PLAIN, answer=fenced(code))


def model_calls(role: object) -> int:
    sent = role.bus.sent  # type: ignore[attr-defined]
    return len([p for p in sent if isinstance(p, Usage) and p.kind == "model"])


async def test_a_program_and_a_plain_program_that_agree_are_verified(tmp_path: Path) -> None:
    role = coder(
        [SPEC, ScriptedAnswer(answer=fenced(SIEVE)), plain(COUNTED)],
        tmp_path,
        cross_check=True,
        plain=True,
    )
    result = await work(role, assignment(["answer"]))
    assert result.outputs == {"answer": 25}
    kinds = {v.kind: (v.passed, v.independent) for v in result.verdicts}
    assert kinds == {"views": (True, True), "property": (True, True)}
    assert verdict_of("25", ["solve"], {"solve": result.verdicts}).verified
    # the two programs and the verifier's check program ran; its statement, and the two, were asked
    assert model_calls(role) == 3 and len(role.runner.executed) == 3  # type: ignore[attr-defined]
    assert result.confidence is not None and result.confidence.views == ["program", "plain"]
    # surer than two drafts of one request (0.6 at most), less than a program and prose (1.0)
    assert result.confidence.score == pytest.approx(0.8)


async def test_the_same_computation_asked_plainly_is_no_second_view(tmp_path: Path) -> None:
    answers = [
        SPEC,
        ScriptedAnswer(answer=fenced(SIEVE)),
        plain(SIEVE),
        ScriptedAnswer(answer=fenced("print(24)")),
    ]
    role = coder(answers, tmp_path, cross_check=True, plain=True, candidate_attempts=1)
    result = await work(role, assignment(["answer"]))
    # the plain program was the first one again: a third candidate was drawn, and it disagreed
    assert model_calls(role) == 4
    agreement = next(v for v in result.verdicts if v.kind == "agreement")
    assert not agreement.passed and "the same program again" in agreement.what
    assert not verdict_of("25", ["solve"], {"solve": result.verdicts}).verified


@pytest.mark.parametrize("value", ["0", "There are 100 of them."])
async def test_a_trivial_or_echoed_value_a_plain_program_agrees_on_does_not_pass(
    value: str,
) -> None:
    planly = replace(cand(value, "b = 2\nc = 3"), view="plain")
    draws = Draws(cand(value, "a = 1"), planly, cand(value, "d = 4"))
    chosen = await select(draws, positive(), "answer", frozenset({100.0}), 3, PLAIN_FIRST)
    assert chosen.drawn == 3  # the pair did not stop the drawing
    failed = [v for v in chosen.verdicts if not v.passed]
    assert [(v.kind, v.independent) for v in failed] == [("views", True)]
    assert "passes only when two views agree" in failed[0].what
    # a value that is found, not trivial, stops at the pair
    draws = Draws(cand("25", "a = 1"), replace(cand("25", "b = 2\nc = 3"), view="plain"))
    chosen = await select(draws, positive(), "answer", frozenset({100.0}), 3, PLAIN_FIRST)
    assert chosen.drawn == 2 and all(v.passed for v in chosen.verdicts)


def test_the_request_is_a_persons_not_the_teams() -> None:
    task = TaskSpec(id="solve", role="coder", description="Count the days.", outputs=["answer"])
    job = TaskAssignment(
        task=task,
        goal="How many days are there from start to end?",
        inputs={"start": "2024-03-14", "end": "2025-01-27", "class": 1},
    )
    system, user = plain_request(job, {}, None)
    assert system.content == PLAIN_SYSTEM
    text = str(user.content)
    assert text.startswith("How many days are there from start to end?")
    assert "What to work out: Count the days." in text
    assert "start = '2024-03-14'\nend = '2025-01-27'" in text
    assert "class = 1" not in text  # not a name a program can assign
    assert "team" not in text and "outputs" not in text.lower() and "inputs.json" not in text


def test_the_plain_view_is_second_only_when_asked_for() -> None:
    job = assignment(["answer"])
    assert views_for(job, prose_on=False, plain_on=True) == PLAIN_FIRST
    assert PLAIN_FIRST[1].kind == "plain" and PLAIN_FIRST[0] == PROGRAMS[0]
    assert views_for(job, prose_on=False) == PROGRAMS
    assert views_for(assignment(["answer", "count"]), prose_on=False, plain_on=True) == PROGRAMS
