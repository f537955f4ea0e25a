"""The check of a plan's answer as a whole: beside a plan of several tasks, the coder answers
the whole goal on its own, from the goal's values only, and the plan's answer is verified
only when the two agree.

Each task's own check sees only that task: in the dev suite's leave-part-time (1.5B), a
coder computed 14.625 days from a formula it had never been given, a second program did
the same, and a last task that only passed the number on was "checked" by two programs
that echoed it. One program that answers the goal as stated shares none of the plan's
wiring, so it does not share its mistakes.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from bus.evidence import EVIDENCE
from bus.payloads import TaskSpec
from roles.verifier.agreement import agree, quoted_in

__all__ = ["GOAL_CHECK", "OUTPUT", "goal_check_task", "judged", "wants_goal_check"]

GOAL_CHECK = "goal_check"
"""The id the task that answers the whole goal on its own is given (what it is, is its
``purpose``: nothing compares this id)."""
OUTPUT = "independent_answer"
"""Its output (not ``answer``: the plan's answer stays the plan's)."""

DESCRIPTION = (
    "Answer the overall goal on your own, exactly as it is stated, as an independent check "
    "of the team's answer: the program computes every value the goal asks for from the "
    f"values given with it, and writes `{OUTPUT}`: one sentence that states each computed "
    "value."
)


def wants_goal_check(tasks: Mapping[str, TaskSpec], roles: set[str]) -> bool:
    """Whether a validated plan gets the goal check: several tasks and a coder to write the
    program (whatever the plan's last outputs are named: its answer is checked as a whole) —
    unless its answer is drawn from a reading, where a worked answer from the documents alone
    is already one of the answer's views (`roles.coder.quotation`): a program of its own
    would parse the report's table by hand, which is what the reading is there to spare."""
    return (
        "coder" in roles
        and len(tasks) > 1
        and all(t.purpose != "goal_check" for t in tasks.values())
        and not any(EVIDENCE in t.inputs and "answer" in t.outputs for t in tasks.values())
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


def judged(answer: str, independent: JsonValue, goal: str) -> tuple[bool, str]:
    """Whether the independent answer agrees with the plan's, and the sentence that says so."""
    if independent is None or independent == "":
        return False, f"{GOAL_CHECK}: no independent answer to the whole goal was computed"
    if agree(answer, independent, quoted_in(goal)):
        return True, f"{GOAL_CHECK}: a program answering the whole goal on its own agrees"
    return False, (
        f"{GOAL_CHECK}: a program answering the whole goal on its own gave "
        f"{str(independent)[:200]!r}, which does not agree with the answer"
    )
