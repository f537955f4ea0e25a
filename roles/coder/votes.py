"""How the coder checks a program's outputs: a second program written independently, and a
third when the two disagree (or when the second was the first again), whose values decide;
when the third merely repeats one side of a disagreement, a fourth written another way.

Values are kept when two programs with different code agree on them (`cross_check`): the
same code twice, differently commented, is one computation, so it confirms nothing — nor
does a tie-breaker that copies one side (top-two-words, 1.5B: the third program was the
first again and "confirmed" its miscount).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue

from bus.payloads import TaskAssignment
from bus.verdicts import CheckVerdict, Level
from roles.coder.artifacts import save_artifacts
from roles.coder.program_checks import same_program
from roles.errors import TaskFailed
from roles.verifier.agreement import agree, disagreements, given_in, quoted_in

__all__ = [
    "ANOTHER_WAY",
    "CHECK_NOTE",
    "Solved",
    "Vote",
    "after_failure",
    "repeatable",
    "tied_level",
    "voted",
]

CHECK_NOTE = (
    "Solve this task on your own, as an independent check of a teammate's work: compute "
    "every output from the inputs, step by step, and write them as asked."
)
"""Added to the task when the coder asks for a second program (its own words differ from
the first request's, so the second program is drawn afresh even at temperature 0)."""

ANOTHER_WAY = (
    "An earlier program computed it the most direct way; write yours another way (another "
    "method or library), so that the two computations are independent."
)
"""What the coder adds when its check program was the first program again."""


def after_failure(error: str) -> str:
    """What the coder adds when a program for the task failed every fix: drawn once more,
    another way, it may not make that mistake (live 1.5B quickstarts: a check program's
    sieve indexed past its list three times over, and the answer went unchecked)."""
    last = " ".join(error.split())[-300:]
    return (
        f"An earlier program for this task failed, and fixing it did not help ({last}). "
        "Write yours another way (another method), from the start."
    )


def repeatable(assignment: TaskAssignment) -> frozenset[float]:
    """The numbers an answer may repeat without having computed them, which candidates are
    not compared on: those the goal's text states and those given with it (`given_in`), not
    those an earlier task computed (a report that restates them has still computed none)."""
    given = {name: assignment.inputs.get(name) for name in assignment.goal_values}
    return quoted_in(assignment.goal) | given_in(given)


@dataclass(frozen=True)
class Solved:
    """A candidate's outputs, the files it wrote, the id of its execution's result message,
    how many attempts it took, its code, and its view (``program``; ``prose``: a worked
    answer, its text as the code, no execution)."""

    outputs: dict[str, JsonValue]
    files: dict[str, bytes]
    exec_id: str
    attempts: int
    code: str = ""
    view: str = "program"
    drawn_by: int = 0
    """The place, among the views drawn, of the view that drew it (`roles.coder.select`)."""
    doubt: str = ""
    """Why it counts as no evidence, though it stands as an answer ("" when it counts): a
    reading of the table for a goal whose words the table does not say."""


@dataclass(frozen=True)
class Vote:
    """The values kept, the checks that confirm them with their executions' ids (none when
    unconfirmed), why they are unconfirmed, and a check program's failure."""

    kept: Solved
    checks: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    note: str = ""
    failure: str = ""
    tied: list[Solved] = field(default_factory=list)
    """Where no values were confirmed, the programs of their own that gave other values than
    the kept one's: level with it, since the first drawn is kept only for being first."""

    def verdict(self) -> CheckVerdict:
        """The agreement verdict: passed when another program gave the kept values (one
        model's programs: not independent)."""
        return CheckVerdict(
            kind="agreement",
            what=self.checks[0] if self.checks else (self.note or "no second program agreed"),
            candidate=self.kept.exec_id,
            passed=bool(self.checks),
            independent=False,
            evidence=self.evidence,
        )


async def voted(
    first: Solved, solve: Callable[[str], Awaitable[Solved]], quoted: frozenset[float]
) -> Vote:
    """Check ``first`` by programs ``solve`` writes when told a note (``quoted``: the goal's
    numbers, which agreement leaves out)."""
    try:
        second = await solve(CHECK_NOTE)
    except TaskFailed as exc:  # a failed check checks nothing: one more, another way
        try:
            second = await solve(f"{CHECK_NOTE} {after_failure(str(exc))}")
        except TaskFailed as again:
            return Vote(first, note="its check programs failed", failure=str(again))
    differ = disagreements(first.outputs, second.outputs, quoted)
    if not differ and not same_program(first.code, second.code):
        check = "a second program, written independently, gave the same values"
        return Vote(first, [check], [first.exec_id, second.exec_id])
    if differ:
        note = (
            f"{CHECK_NOTE} Two earlier programs disagree on: {'; '.join(differ)}. "
            "Find out which is right."
        )
        candidates = [first, second]
    else:  # the check was the first program again: no independent computation yet
        note = f"{CHECK_NOTE} {ANOTHER_WAY}"
        candidates = [first]
    why = f"programs disagree: {differ}" if differ else "its check program failed"
    tied = [second] if differ else []
    try:
        third = await solve(note)
    except TaskFailed as exc:
        return Vote(first, note=why, failure=str(exc), tied=tied)
    if vote := _confirmed(candidates, third, quoted):
        return vote
    if differ and any(_echoes(third, kept, quoted) for kept in candidates):
        # the third repeated one side's program: still one against one, so one more, another way
        try:
            fourth = await solve(f"{note} {ANOTHER_WAY}")
        except TaskFailed as exc:
            return Vote(first, note=why, failure=str(exc), tied=tied)
        if vote := _confirmed(candidates, fourth, quoted, programs="four"):
            return vote
        third = fourth
    why = f"three programs disagree: {differ}" if differ else "no independent check agreed"
    if not any(_echoes(third, c, quoted) for c in [first, *tied]):
        tied.append(third)
    return Vote(first, note=why, tied=tied)


def tied_level(vote: Vote, run_dir: Path, task_id: str) -> list[Level]:
    """The programs ``vote`` left tied, as its task's level candidates (their outputs, files
    saved beside the kept one's, and the vote's verdict), for the goal check to weigh."""
    verdict = vote.verdict()
    return [
        Level(
            outputs=other.outputs,
            artifacts=save_artifacts(run_dir, f"{task_id}/level-{n}", other.files),
            verdicts=[verdict.model_copy(update={"candidate": other.exec_id})],
        )
        for n, other in enumerate(vote.tied, 1)
    ]


def _short(value: JsonValue, most: int = 100) -> str:
    """A value as one line of at most ``most`` characters: what an outvoted program gave,
    beside the kept values it is read with (its whole text nested the answer's again)."""
    text = " ".join((value if isinstance(value, str) else json.dumps(value)).split())
    return text if len(text) <= most else text[: most - 1] + "…"


def _echoes(new: Solved, kept: Solved, quoted: frozenset[float]) -> bool:
    """Whether ``new`` is ``kept`` again: its values and its code."""
    return not disagreements(kept.outputs, new.outputs, quoted) and same_program(
        kept.code, new.code
    )


def _confirmed(
    candidates: list[Solved], new: Solved, quoted: frozenset[float], programs: str = "three"
) -> Vote | None:
    """The candidate whose values ``new`` gives by other code, if one does (a candidate it
    merely repeats is no check: one computation twice)."""
    for kept in candidates:
        if disagreements(kept.outputs, new.outputs, quoted) or same_program(kept.code, new.code):
            continue
        if len(candidates) > 1:
            others = [c for c in candidates if c is not kept]
            gave = "; ".join(
                f"{name} {_short(c.outputs.get(name))}"
                for c in others
                for name in kept.outputs
                if not agree(kept.outputs[name], c.outputs.get(name), quoted)
            )
            check = (
                f"two of {programs} programs, written independently, gave the same values "
                f"(the other gave {gave})"
            )
        else:
            check = "a second program, written another way, gave the same values"
        return Vote(kept, [check], [kept.exec_id, new.exec_id])
    return None
