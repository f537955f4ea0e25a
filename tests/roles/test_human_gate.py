"""Who is attached, and what counts as an approval (the gate's logic without a bus)."""

from __future__ import annotations

from bus.payloads import Plan, TaskSpec
from roles.human_gate import approval_of
from roles.manager.approval import describe_plan
from roles.manager.graph import validate_plan
from roles.presence import STALE_S, HumanPresence


def test_people_come_heartbeat_and_go() -> None:
    presence = HumanPresence()
    presence.seen("ada", "up", now=0.0)
    presence.seen("bob", "up", now=0.0)
    assert presence.attached(now=1.0) == ["ada", "bob"]
    presence.seen("bob", "down", now=2.0)
    presence.seen("ada", "heartbeat", now=STALE_S)
    assert presence.attached(now=STALE_S + 1) == ["ada"]
    assert presence.attached(now=2 * STALE_S + 1) == []  # her client died: no heartbeat


def test_approval_is_the_flag_or_the_first_word_for_plan_approvals_only() -> None:
    assert approval_of("plan_approval", "", True) is True
    assert approval_of("plan_approval", "approve", None) is True
    assert approval_of("plan_approval", "Too broad", None) is False
    assert approval_of("plan_approval", "yes, go", False) is False
    assert approval_of("question", "approve", None) is None


def test_the_approval_question_lists_the_tasks() -> None:
    tasks = [
        TaskSpec(id="a", role="researcher", description="Explain primes.", outputs=["x"]),
        TaskSpec(id="b", role="coder", description="Count them.", inputs=["x"], depends_on=["a"]),
    ]
    plan = Plan(revision=2, tasks=tasks, success_criteria=["counted"])
    check = validate_plan(tasks, roles={"researcher", "coder"}, available=set(), completed={})
    assert describe_plan(plan, check) == (
        "Approve plan 2 (2 tasks)?\n"
        "  a (researcher): Explain primes.\n"
        "  b (coder after a): Count them.\n"
        "  done when: counted"
    )
