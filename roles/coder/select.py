"""Solve, verify, select: the answer to a goal is drawn as several candidate programs (each
asked another way, so each is its own computation), grouped by the values they give, and
the largest group that passes the verifier's check — written from the goal alone before any
candidate — is kept (dual agreement). A check that fails every candidate is set aside: at
1.5B the verifier often writes out an answer of its own and compares, and candidates drawn
apart are likelier right than one such check. Drawing stops early once two programs with different
code agree and pass the check. Every check of the kept answer is one typed verdict
(`bus.verdicts`): the verifier's check (independent of the answer) and the agreement of
candidates (not: one model, one prompt, can misread a goal twice the same way).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from bus.verdicts import CheckVerdict
from roles.coder.program_checks import same_program
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.verifier.agreement import disagreements
from roles.verifier.checks import Judged

__all__ = ["VARIANTS", "Group", "Selection", "groups_of", "select"]

VARIANTS = (
    "",
    "Solve this task on your own, as an independent check of a teammate's work: compute "
    "every output from the values, step by step, and write them as asked.",
    "Write the program another way than the most direct one (another method or library, or "
    "by counting or simulating), so that its result is an independent computation.",
    "First write, as comments, what the goal asks and each quantity it gives; then compute "
    "the outputs from them.",
)
"""What each candidate's request adds (the first is the task as it is): at temperature 0,
other words draw another program."""

Draw = Callable[[str], Awaitable[Solved]]
"""One candidate: the note added to the request -> a program that ran and passed its checks."""
Judge = Callable[[list[str]], Awaitable[Judged]]
"""The verifier's check over candidate answers."""


@dataclass
class Group:
    """Candidates that gave the same values (the first is the one kept)."""

    members: list[Solved]

    @property
    def kept(self) -> Solved:
        return self.members[0]

    @property
    def agreeing(self) -> int:
        """How many members are computations of their own (not one program twice)."""
        distinct: list[Solved] = []
        for m in self.members:
            if not any(same_program(m.code, d.code) for d in distinct):
                distinct.append(m)
        return len(distinct)


@dataclass(frozen=True)
class Selection:
    """The kept candidate, the verdicts on it, and why it is not verified (or "")."""

    kept: Solved
    verdicts: list[CheckVerdict] = field(default_factory=list)
    note: str = ""
    drawn: int = 0
    failures: list[str] = field(default_factory=list)


def _answer(s: Solved, output: str) -> str:
    value = s.outputs.get(output, "")
    return value if isinstance(value, str) else str(value)


def groups_of(cands: Sequence[Solved], quoted: frozenset[float]) -> list[Group]:
    """Candidates grouped by values (in the order their first member was drawn)."""
    groups: list[Group] = []
    for c in cands:
        home = next(
            (g for g in groups if not disagreements(g.kept.outputs, c.outputs, quoted)), None
        )
        if home is None:
            groups.append(Group([c]))
        else:
            home.members.append(c)
    return groups


async def select(
    draw: Draw,
    judge: Judge | None,
    output: str,
    quoted: frozenset[float],
    most: int,
) -> Selection:
    """Draw up to ``most`` candidates (`VARIANTS`), judge them, keep the best group.
    Raises `TaskFailed` when no candidate ran."""
    cands: list[Solved] = []
    failures: list[str] = []
    last: TaskFailed | None = None
    judged: Judged | None = None
    drawn = 0
    for note in VARIANTS[: max(1, most)]:
        drawn += 1
        try:
            cands.append(await draw(note))
        except TaskFailed as exc:
            failures.append(str(exc))
            last = exc
            continue
        groups = groups_of(cands, quoted)
        if max(g.agreeing for g in groups) < 2:
            continue
        judged = await judge([_answer(g.kept, output) for g in groups]) if judge else None
        best = _best(groups, judged)
        if best.agreeing >= 2 and (judged is None or _passed(judged, groups.index(best))):
            break
    if not cands:  # the last failure as it was: a model outage stays one (its cause)
        raise last if last is not None else TaskFailed("no candidate program ran")
    groups = groups_of(cands, quoted)
    if judge is not None and (judged is None or len(judged.outcomes) != len(groups)):
        judged = await judge([_answer(g.kept, output) for g in groups])
    if judged is not None and judged.usable and all(o != "pass" for o, _ in judged.outcomes):
        why = "it fails every candidate, so it is likelier wrong than all of them"
        judged = Judged(judged.outcomes, False, why, judged.exec_id)
    best = _best(groups, judged)
    verdicts, note = _verdicts(best, groups, judged)
    return Selection(best.kept, verdicts, note, drawn, failures)


def _passed(judged: Judged, index: int) -> bool:
    return judged.usable and judged.outcomes[index][0] == "pass"


def _best(groups: list[Group], judged: Judged | None) -> Group:
    """The largest group that passes the check (when the check is usable), else the largest."""
    passing = [g for i, g in enumerate(groups) if judged is not None and _passed(judged, i)]
    pool = passing or groups
    return max(pool, key=lambda g: (g.agreeing, len(g.members), -groups.index(g)))


def _verdicts(
    best: Group, groups: list[Group], judged: Judged | None
) -> tuple[list[CheckVerdict], str]:
    kept = best.kept
    n, others = best.agreeing, len(groups) - 1
    agreed = CheckVerdict(
        kind="agreement",
        what=(
            f"{n} candidate programs, each drawn apart, gave these values"
            + (f" ({others} other group(s) of values)" if others else "")
            if n >= 2
            else "no other candidate program gave these values"
        ),
        candidate=kept.exec_id,
        passed=n >= 2,
        independent=False,
        evidence=[m.exec_id for m in best.members],
    )
    verdicts = [agreed]
    if judged is None:
        return verdicts, "no check was written from the goal"
    if not judged.usable:
        return verdicts, f"the verifier's check counts for nothing: {judged.why_not}"
    outcome, message = judged.outcomes[groups.index(best)]
    passed = outcome == "pass"
    verdicts.append(
        CheckVerdict(
            kind="property",
            what=(
                "it passes the verifier's check, written from the goal before any answer"
                if passed
                else f"it fails the verifier's check, written from the goal: {message}"
            ),
            candidate=kept.exec_id,
            passed=passed,
            independent=True,
            evidence=[judged.exec_id],
        )
    )
    if not passed:
        return verdicts, f"it fails the verifier's check ({message})"
    return verdicts, "" if n >= 2 else "no second candidate agreed"
