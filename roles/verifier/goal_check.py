"""The check of a plan's answer as a whole: beside a plan of several tasks, the coder answers
the whole goal on its own, from the goal's values only, and the plan's answer is verified
only when the two agree.

An answer that names the values a relation the goal defines is between ("how close they are
(the count divided by the estimate)") must state what they give, whoever computed it: code
reads the goal's own words (`roles.verifier.relation`), which two programs sharing a
misreading cannot outvote.

When the plan gives no answer, or one the goal check disagrees with, and a second program
answering the whole goal, written independently, gave the goal check's values, those values
stand as the run's answer (`standing`): two computations of the goal as stated against the
plan's one, whose steps a small planner may have worded away from the goal (a live 1.5B
quickstart's plan asked "how close" the count was and divided the excess by the estimate,
0.132, where the goal asks for the count divided by the estimate, 1.132).

Each task's own check sees only that task: in the dev suite's leave-part-time (1.5B), a
coder computed 14.625 days from a formula it had never been given, a second program did
the same, and a last task that only passed the number on was "checked" by two programs
that echoed it. One program that answers the goal as stated shares none of the plan's
wiring, so it does not share its mistakes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import JsonValue

from bus.evidence import EVIDENCE
from bus.payloads import TaskSpec
from bus.verdicts import CheckVerdict
from roles.verifier.agreement import agree, quoted_in
from roles.verifier.relation import holds, relation_in
from roles.verifier.values import as_text, numbers

__all__ = [
    "GOAL_CHECK",
    "OUTPUT",
    "GoalCheck",
    "covers",
    "goal_check_task",
    "judged",
    "standing",
    "wants_goal_check",
]

GOAL_CHECK = "goal_check"
"""The id the task that answers the whole goal on its own is given (what it is, is its
``purpose``; a replan finds the one an earlier plan did by this id, and keeps it)."""
OUTPUT = "independent_answer"
"""Its output (not ``answer``: the plan's answer stays the plan's)."""

DESCRIPTION = (
    "Answer the overall goal on your own, exactly as it is stated, as an independent check "
    "of the team's answer: the program computes every value the goal asks for from the "
    "values given with it, each the way the goal's own words define it, and writes "
    f"`{OUTPUT}`: one sentence that states each computed value."
)


@dataclass(frozen=True)
class GoalCheck:
    """What the goal check gave, as the rule reads it: the goal, the independent answer (None
    or "": none), the goal check task's verdicts, and the answers of its programs left tied
    with the one it kept (`roles.coder.votes.Vote.tied`)."""

    goal: str
    independent: JsonValue
    shown: list[CheckVerdict] = field(default_factory=list)
    tied: list[JsonValue] = field(default_factory=list)


def wants_goal_check(tasks: Mapping[str, TaskSpec], roles: set[str]) -> bool:
    """Whether a validated plan gets the goal check: several tasks and a coder to write the
    program (whatever the plan's last outputs are named: its answer is checked as a whole) —
    unless its answer is drawn from a reading alone, where a worked answer from the documents
    is already one of the answer's views (`roles.coder.quotation`): a program of its own
    would parse the report's table by hand, which is what the reading is there to spare. A
    plan that also computes values by other coder tasks is checked (a live 1.5B quickstart
    read, counted, estimated and divided, and its answer task read the reading too)."""
    from_reading = any(EVIDENCE in t.inputs and "answer" in t.outputs for t in tasks.values())
    computing = any(t.role == "coder" and "answer" not in t.outputs for t in tasks.values())
    return (
        "coder" in roles
        and len(tasks) > 1
        and all(t.purpose != "goal_check" for t in tasks.values())
        and (computing or not from_reading)
    )


def goal_check_task(goal_inputs: list[str]) -> TaskSpec:
    """The task: every goal value in, the independent answer out, depending on nothing."""
    return TaskSpec(
        id=GOAL_CHECK,
        role="coder",
        description=DESCRIPTION,
        inputs=goal_inputs,
        outputs=[OUTPUT],
        purpose="goal_check",
    )


def judged(answer: str, check: GoalCheck) -> tuple[bool, str]:
    """Whether the independent answer agrees with the plan's, and the sentence that says so.
    An answer that breaks the relation the goal itself defines between values it reports
    does not agree at all (`roles.verifier.relation`). A percentage agrees with the fraction
    it is (`roles.verifier.agreement.as_fractions`: a live 1.5B goal check's program gave the
    plan's count and estimate and said "113% close" for its ratio of 1.132). An answer that
    agrees by stating fewer values of its own than the program does answers part of the goal
    and does not agree (`covers`: a live 1.5B plan answered the estimate alone, 1085.74, and
    the goal check's count, estimate and ratio held it). Where the programs were left tied,
    one that gives the plan's values agrees all the same, since the first drawn was kept
    only for being first (a live 1.5B goal check kept an estimate cut to 1085.0 over its
    second program's 1085.74, which the plan's right answer gave) — but only if the answer
    also covers the kept program: a tie is a coin flip between answers to the whole goal,
    not between a whole answer and part of one (a live 1.5B quickstart at 7580443 answered a
    count and an estimate with no ratio, a tied program gave the same two, and the run ended
    `succeeded`)."""
    independent, goal = check.independent, check.goal
    if independent is None or independent == "":
        return False, f"{GOAL_CHECK}: no independent answer to the whole goal was computed"
    if (broken := _breaks(answer, goal)) is not None:
        return False, broken
    quoted = quoted_in(goal)
    if agree(answer, independent, quoted, percent=True):
        if not covers(answer, independent, goal):
            return False, _part(answer, independent, goal)
        return True, f"{GOAL_CHECK}: a program answering the whole goal on its own agrees"
    tied = [other for other in check.tied if other not in (None, "")]
    if covers(answer, independent, goal) and any(
        agree(answer, other, quoted, percent=True) and covers(answer, other, goal) for other in tied
    ):
        return True, (
            f"{GOAL_CHECK}: its programs answering the whole goal on their own disagreed, and "
            "one of them gives these values"
        )
    return False, (
        f"{GOAL_CHECK}: a program answering the whole goal on its own gave "
        f"{str(independent)[:200]!r}, which does not agree with the answer"
    )


def standing(
    answer: str | None,
    independent: JsonValue,
    shown: list[CheckVerdict],
    goal: str,
    *,
    backed: bool,
) -> CheckVerdict | None:
    """The verdict by which the goal check's own answer (``independent``) answers the run: the
    plan gave none or one it disagrees with, and the goal check's values were given again by
    a second program written independently (a passed ``agreement`` among ``shown``, its
    task's verdicts). Where the plan gave none it passes; where the plan's answer disagrees
    it fails, and the goal check's answer is given unverified: two programs of one model
    share misreadings (live 1.5B quickstarts at 7580443: twice they agreed on the count's
    excess over the estimate, 0.13, for the ratio the goal defines, once over the plan's
    right 1.132), and on the quickstart's logged runs such an answer was right 3 times in 5 —
    unless the goal defines a relation its values hold and the plan's break (a live 1.5B
    quickstart at 74972e8: the plan gave the count's excess, 0.132, the goal check the ratio),
    or no second program gave the plan's answer (``backed`` False) and the goal check's
    states as many values as it does: two programs against one (live 1.5B quickstarts at
    74972e8-254eb0a: a plan's answer task alone gave a count of 0.25 and an estimate of
    4915.0, another's an estimate of 5000.1, each against two programs giving 1229, 1085.74
    and 1.132), or the plan's answer is part of the goal check's (it agrees, and states fewer
    values): the plan's values are given again, and two programs add the rest (a live 1.5B
    answer task, sent back for a ratio that broke the goal's relation, answered the count
    alone, 1229, beside two programs giving 1229, 1085.74 and 1.132; a plan that gave no
    answer at all would have let theirs stand). None when it does not stand, or breaks the
    goal's relation itself — also when it states only numbers the goal states: two programs
    echoing the goal agree on nothing they computed. A goal check's answer may be an object
    of named values as well as text."""
    if isinstance(independent, bool) or independent in (None, [], {}):
        return None
    if not as_text(independent).strip():
        return None
    quoted = quoted_in(goal)
    if (
        answer is not None
        and agree(answer, independent, quoted, percent=True)
        and covers(answer, independent, goal)
    ):
        return None  # it checks the plan's answer instead (`judged`)
    confirmed = [v for v in shown if v.kind == "agreement" and v.passed]
    stated = numbers(independent)
    if not confirmed or (stated and all(n in quoted for n in stated)):
        return None
    if _breaks(independent, goal) is not None:
        return None  # the goal's own definition, read by code, outranks two programs
    agreed = f"two programs answering the whole goal on their own agree ({confirmed[0].what})"
    relation = relation_in(goal)
    decided = (
        relation is not None
        and answer is not None
        and holds(relation, independent) is True
        and (broken := _breaks(answer, goal)) is not None
    )
    outnumbered = answer is not None and not backed and covers(as_text(independent), answer, goal)
    within = answer is not None and agree(answer, independent, quoted, percent=True)
    if answer and within:
        what = (
            f"{GOAL_CHECK}: the plan's answer {answer[:200]!r} gives part of theirs; {agreed}, "
            "so their answer, which holds the plan's values, stands"
        )
    elif answer and decided:
        what = (
            f"{GOAL_CHECK}: the plan's answer {answer[:200]!r} disagrees; {agreed}, and "
            f"their values hold the goal's own definition where the plan's do not ({broken}), "
            "so their answer stands"
        )
    elif answer and outnumbered:
        what = (
            f"{GOAL_CHECK}: the plan's answer {answer[:200]!r} disagrees, and no second "
            f"program gave it; {agreed}, and state as many values, so their answer stands"
        )
    elif answer:
        what = (
            f"{GOAL_CHECK}: the plan's answer {answer[:200]!r} disagrees; {agreed}, so their "
            "answer is given, unverified: two readings of the goal disagree"
        )
    else:
        what = f"{GOAL_CHECK}: the plan gave no answer; {agreed}, so their answer stands"
    return CheckVerdict(
        kind="goal_check",
        what=what,
        candidate=OUTPUT,
        passed=not answer or decided or outnumbered or within,
        independent=True,
        evidence=confirmed[0].evidence,
    )


def _breaks(value: JsonValue, goal: str) -> str | None:
    """Why ``value`` breaks the relation the goal defines between values it reports
    (`roles.verifier.relation`), or None: it holds, or there is nothing to check."""
    relation = relation_in(goal)
    if relation is None or holds(relation, value) is not False:
        return None
    return (
        f"{GOAL_CHECK}: the goal defines a value as ({relation.words}), and the figures "
        f"{str(value)[:200]!r} gives for those two give no number it states"
    )


def _part(answer: str, independent: JsonValue, goal: str) -> str:
    """Why an answer that agrees by being contained answers only part of the goal."""
    return (
        f"{GOAL_CHECK}: the answer states {_own(answer, goal)} value(s) of its own where a "
        f"program answering the whole goal on its own computed {_own(independent, goal)} "
        f"({str(independent)[:200]!r}): it answers part of the goal"
    )


def _own(value: JsonValue, goal: str) -> int:
    """How many numbers ``value`` states that the goal does not."""
    quoted = quoted_in(goal)
    return len([n for n in numbers(value) if n not in quoted])


def covers(answer: str, independent: JsonValue, goal: str) -> bool:
    """Whether ``answer`` states at least as many values of its own (not the goal's) as the
    independent answer: values agree when those of the shorter statement are all in the
    longer, so an answer stating the count alone agrees with one stating count, estimate and
    ratio, and answers only part of the goal."""
    return _own(answer, goal) >= _own(independent, goal)
