"""The manager's decisions as values (pure logic): what a result, a plan, a critique and a
person's answer decide."""

from __future__ import annotations

from bus.payloads import Critique, Goal, Plan, TaskResult, TaskSpec
from roles.human_gate import HumanReply
from roles.manager import approval
from roles.manager.ledger import InFlight, Ledger
from roles.manager.planning import Planning, Refused, Stale, Valid
from roles.manager.scheduler import Scheduler
from roles.manager.tasks import Finish, Proceed, Replan, Settled, settle


def spec(tid: str, outputs: list[str] | None = None) -> TaskSpec:
    return TaskSpec(id=tid, role="coder", description=tid, outputs=outputs or ["x"])


def result(tid: str, status: str, **kw: object) -> TaskResult:
    return TaskResult(task_id=tid, role="coder", status=status, **kw)  # type: ignore[arg-type]


def running(tid: str = "a") -> tuple[Scheduler, Ledger, InFlight]:
    sched = Scheduler({tid: spec(tid)}, {"coder": 1})
    (started,) = sched.next_batch()
    return sched, Ledger(), InFlight(started.id, 1, revision=1)


def settled(
    sched: Scheduler, ledger: Ledger, flight: InFlight, res: TaskResult, max_retries: int = 1
) -> Settled:
    """``settle`` for revision 1 of a plan that may still be replanned."""
    return settle(sched, ledger, flight, res, revision=1, max_retries=max_retries, can_replan=True)


def test_a_result_is_done_retried_replanned_or_ends_the_run() -> None:
    sched, ledger, flight = running()
    done = settled(sched, ledger, flight, result("a", "done", outputs={"x": 1}))
    assert done == Proceed() and ledger.completed == {"a": {"x": 1}} and sched.finished

    sched, ledger, flight = running()
    first = settled(sched, ledger, flight, result("a", "failed", error="boom"))
    assert first == Proceed()  # retried, with a note for the next attempt
    assert ledger.retry_note("a") == ["Attempt 1 failed: boom"]
    (again,) = sched.next_batch()
    second = settled(sched, ledger, InFlight(again.id, 2, 1), result("a", "failed", error="boom"))
    assert second == Replan("task a failed: boom") and ledger.failed == {"a": "boom"}

    sched, ledger, flight = running()
    stopped = settled(
        sched, ledger, flight, result("a", "budget_exhausted", error="calls=3"), max_retries=5
    )
    assert stopped == Finish("budget_exhausted", "calls=3")  # a typed stop, never retried


def test_missing_outputs_fail_and_old_revisions_change_nothing() -> None:
    sched, ledger, flight = running()
    out = settle(
        sched, ledger, flight, result("a", "done"), revision=1, max_retries=0, can_replan=False
    )
    assert out == Finish("failed", "task a failed after 1 attempts: did not produce outputs ['x']")
    sched, ledger, flight = running()
    old = InFlight("a", 1, revision=1)
    assert (
        settle(
            sched, ledger, old, result("a", "failed"), revision=2, max_retries=0, can_replan=False
        )
        == Proceed()
    )
    assert ledger.failed == {}


def test_a_plan_is_stale_refused_valid_or_the_planner_gave_up() -> None:
    goal = Goal(text="g")
    planning = Planning(max_tries=2, duplicate_threshold=92)
    planning.request("initial", goal, ["coder"], Ledger())
    bad = Plan(revision=1, tasks=[TaskSpec(id="a", role="poet", description="a")])
    refused = planning.review(bad, goal, ["coder"], Ledger())
    assert isinstance(refused, Refused) and refused.give_up is None
    assert "poet" in "; ".join(refused.decision.errors)
    planning.request("invalid", goal, ["coder"], Ledger())
    last = planning.review(bad, goal, ["coder"], Ledger())
    assert isinstance(last, Refused) and last.give_up and "after 2 tries" in last.give_up
    assert isinstance(planning.review(Plan(revision=9), goal, ["coder"], Ledger()), Stale)
    good = Plan(revision=1, tasks=[spec("a")])
    assert isinstance(planning.review(good, goal, ["coder"], Ledger()), Valid)
    spent = Plan(revision=1, status="budget_exhausted", error="calls=3")
    assert planning.review(spent, goal, ["coder"], Ledger()) == Finish(
        "budget_exhausted", "calls=3"
    )


def test_a_replan_is_not_shown_the_goal_check() -> None:
    """The goal check is the manager's, kept apart from the team's work: a live 1.5B replan
    shown it named three of its tasks ``goal_check``."""
    goal = Goal(text="g", inputs={"limit": 10})
    ledger = Ledger()
    ledger.completed = {"read": {"statement": "s"}, "goal_check": {"independent_answer": "1"}}
    ledger.failed = {"count": "it failed", "goal_check": "it failed too"}
    planning = Planning(max_tries=2, duplicate_threshold=92)
    request = planning.request("failure", goal, ["coder"], ledger)
    assert request.completed == {"read": {"statement": "s"}}
    assert request.failed == {"count": "it failed"}
    assert "goal_check" in ledger.completed  # the manager's own record keeps it


def reply(text: str, by: str = "ada", approved: bool | None = None) -> HumanReply:
    return HumanReply("q1", text, approved, by, "m1")


def test_a_persons_answers_are_decisions() -> None:
    plan = Plan(revision=3)
    assert isinstance(approval.plan_verdict(reply("ok", approved=True), plan), approval.Approve)
    rejected = approval.plan_verdict(reply("too broad", approved=False), plan)
    assert rejected == approval.Reject(rejected.reply, "ada rejected plan 3: too broad")
    assert approval.escalation_choice(reply("replan  use the corpus")) == approval.Replan(
        reply("replan  use the corpus"), "use the corpus"
    )
    assert isinstance(approval.escalation_choice(reply("continue")), approval.CarryOn)
    stop = approval.escalation_choice(reply("stop", by="default"))
    assert isinstance(stop, approval.Stop) and stop.who == "nobody answered (default: stop)"


def test_a_critique_replans_escalates_stops_or_is_ignored() -> None:
    loop = Critique(detector="repeat", verdict="loop", summary="s", revision=2)
    step = {"revision": 2, "escalate": True, "attached": True, "replans": 1}
    assert isinstance(approval.critique_step(loop, can_replan=True, **step), approval.Revise)  # type: ignore[arg-type]
    assert isinstance(approval.critique_step(loop, can_replan=False, **step), approval.Escalate)  # type: ignore[arg-type]
    alone = {**step, "attached": False}
    stop = approval.critique_step(loop, can_replan=False, **alone)  # type: ignore[arg-type]
    assert isinstance(stop, approval.StopRun) and "no human attached" in stop.reason
    old = loop.model_copy(update={"revision": 1})
    assert isinstance(approval.critique_step(old, can_replan=True, **step), approval.Ignore)  # type: ignore[arg-type]
