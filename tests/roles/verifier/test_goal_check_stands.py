"""Which plans get the goal check, and where the plan gives no answer, or one the goal check
disagrees with, the goal check's own answer stands only when a second program answering the
whole goal gave its values — on plans, verdicts and ledgers made by hand (no Docker, no
NATS)."""

from __future__ import annotations

import json

from pydantic import JsonValue

from bus.payloads import Goal, TaskSpec
from bus.verdicts import CheckVerdict
from roles.budget import BudgetSettings, BudgetTracker
from roles.manager.final import final_message, stated
from roles.manager.ledger import Ledger
from roles.manager.scheduler import Scheduler
from roles.verifier.goal_check import OUTPUT, goal_check_task, standing, wants_goal_check

GOAL = (
    "Count the primes below the limit 10000, estimate them by x / ln x and give the ratio "
    "(the count divided by the estimate)."
)
RIGHT = "1229 primes; estimate 1085.74; ratio 1.132"


def task(tid: str, role: str, inputs: list[str], outputs: list[str]) -> TaskSpec:
    return TaskSpec(id=tid, role=role, description=tid, inputs=inputs, outputs=outputs)


def test_a_plan_computing_beside_its_reading_gets_the_goal_check() -> None:
    read = task("read", "researcher", [], ["evidence"])
    solve = task("solve", "coder", ["evidence"], ["answer"])
    count = task("count", "coder", ["limit"], ["prime_count"])
    report = task("report", "coder", ["evidence", "prime_count"], ["answer"])
    roles = {"coder", "researcher"}
    assert not wants_goal_check({"read": read, "solve": solve}, roles)  # the reading answers
    assert wants_goal_check({"read": read, "count": count, "report": report}, roles)
    assert wants_goal_check({"count": count, "report": report}, roles)
    assert not wants_goal_check({"report": report}, roles)  # one task is its own check
    assert not wants_goal_check({"count": count, "report": report}, {"researcher"})


def verdict(kind: str, passed: bool, what: str = "") -> CheckVerdict:
    return CheckVerdict.model_validate(
        {"kind": kind, "what": what or f"{kind} check", "passed": passed, "independent": False}
    )


AGREED = [verdict("goal_check", True), verdict("agreement", True, "a second program agreed")]
UNAGREED = [verdict("goal_check", True), verdict("agreement", False)]


def test_a_confirmed_goal_check_stands_against_a_plan_answer_it_disagrees_with() -> None:
    stood = standing("1229, 1085.74, 0.132", RIGHT, AGREED, GOAL, backed=True)
    assert stood is not None and stood.independent
    assert not stood.passed  # two readings of the goal disagree: neither is confirmed
    assert "the plan's answer '1229, 1085.74, 0.132' disagrees" in stood.what
    none = standing(None, RIGHT, AGREED, GOAL, backed=True)  # the plan gave none
    assert none is not None and none.passed and "so their answer stands" in none.what


def test_it_does_not_stand_unconfirmed_or_where_it_agrees_or_echoes_the_goal() -> None:
    assert standing("0.132", RIGHT, UNAGREED, GOAL, backed=False) is None  # one program: a draft
    assert (
        standing(RIGHT, RIGHT, AGREED, GOAL, backed=False) is None
    )  # it checks the answer instead
    assert standing("0.132", "", AGREED, GOAL, backed=False) is None
    assert (
        standing("0.132", "the limit is 10000", AGREED, GOAL, backed=False) is None
    )  # only the goal's


def ran(
    answer: JsonValue,
    independent: JsonValue,
    shown: list[CheckVerdict],
    status: str,
    backed: bool = True,
) -> Ledger:
    """A ledger of a two-task plan (``answer`` None: its last task failed; ``backed``: a second
    program gave its answer) and its goal check."""
    ledger = Ledger()
    ledger.completed["count"] = {"prime_count": 1229}
    if answer is not None:
        ledger.completed["report"] = {"answer": answer}
        ledger.checked["report"] = [verdict("agreement", backed)]
    else:
        ledger.failed["report"] = status
    ledger.completed["goal_check"] = {OUTPUT: independent}
    ledger.checked["goal_check"] = shown
    return ledger


def scheduler() -> Scheduler:
    tasks = {
        "count": TaskSpec(id="count", role="coder", description="Count.", outputs=["prime_count"]),
        "report": TaskSpec(
            id="report",
            role="coder",
            description="Report.",
            inputs=["prime_count"],
            outputs=["answer"],
            depends_on=["count"],
        ),
        "goal_check": goal_check_task(["limit"]),
    }
    return Scheduler(tasks, {"coder": 1})


def test_against_the_plans_answer_the_confirmed_goal_check_answers_unverified() -> None:
    """Live 1.5B quickstarts (7580443): the goal check's two programs agreed on the count's
    excess over the estimate (0.13) where the plan's answer gave the ratio, and won."""
    budget = BudgetTracker(BudgetSettings())
    final = final_message(
        "succeeded", "", ran("ratio 0.132", RIGHT, AGREED, ""), scheduler(), 1, budget, GOAL
    )
    assert final.status == "unverified" and final.answer == RIGHT
    assert final.verdict is not None and not final.verdict.verified
    assert [v.kind for v in final.verdict.verdicts] == ["goal_check"]
    assert "two readings of the goal disagree" in final.reason


def test_a_failed_plan_is_answered_by_the_confirmed_goal_check() -> None:
    budget = BudgetTracker(BudgetSettings())
    ledger = ran(None, RIGHT, AGREED, "report: ZeroDivisionError")
    final = final_message("failed", "report failed", ledger, scheduler(), 1, budget, GOAL)
    assert final.status == "succeeded" and final.answer == RIGHT and final.reason == ""


def test_a_spent_budget_is_answered_by_the_confirmed_goal_check_and_a_stop_is_not() -> None:
    """A live 1.5B quickstart (45a960c) spent its wall budget on a plan whose programs failed,
    its goal check's two programs having agreed on the right three values: no answer."""
    budget = BudgetTracker(BudgetSettings())
    ledger = ran(None, RIGHT, AGREED, "report: cancelled")
    final = final_message("budget_exhausted", "wall", ledger, scheduler(), 1, budget, GOAL)
    assert final.status == "succeeded" and final.answer == RIGHT and final.reason == ""
    unconfirmed = ran(None, RIGHT, UNAGREED, "report: cancelled")
    spent = final_message("budget_exhausted", "wall", unconfirmed, scheduler(), 1, budget, GOAL)
    assert spent.status == "budget_exhausted" and spent.reason == "wall"
    stopped = final_message("aborted", "stopped", ledger, scheduler(), 1, budget, GOAL)
    assert stopped.status == "aborted"


def test_an_unconfirmed_goal_check_leaves_the_plans_answer_unverified() -> None:
    budget = BudgetTracker(BudgetSettings())
    ledger = ran("ratio 0.132", RIGHT, UNAGREED, "")
    final = final_message("succeeded", "", ledger, scheduler(), 1, budget, GOAL)
    assert final.status == "unverified" and final.answer == "ratio 0.132"
    ledger = ran(None, RIGHT, UNAGREED, "report: ZeroDivisionError")
    failed = final_message("failed", "report failed", ledger, scheduler(), 1, budget, GOAL)
    assert failed.status == "failed"


def test_the_plans_own_values_confirmed_by_the_goal_check_answer_where_its_last_task_erred() -> (
    None
):
    names = {"count": "prime_count", "estimate": "estimate", "divide": "ratio"}
    tasks = {t: task(t, "coder", ["limit"], [out]) for t, out in names.items()}
    tasks["report"] = task("report", "coder", [*names.values(), "limit"], ["answer"])
    tasks["goal_check"] = goal_check_task(["limit"])
    ledger = Ledger()
    for (tid, out), value in zip(names.items(), [1229, 1085.7362, 1.1320], strict=True):
        ledger.completed[tid] = {out: value}
        ledger.checked[tid] = [verdict("agreement", tid != "estimate")]  # its programs differed
    ledger.completed["report"] = {"answer": "estimate 2500, ratio 0.4916"}
    ledger.completed["goal_check"] = {OUTPUT: RIGHT}
    ledger.checked["goal_check"] = UNAGREED  # one program: it checks, it cannot stand alone
    budget = BudgetTracker(BudgetSettings())
    final = final_message("succeeded", "", ledger, Scheduler(tasks, {"coder": 1}), 1, budget, GOAL)
    assert final.status == "succeeded", final.reason
    assert final.answer == "prime_count: 1229\nestimate: 1085.7362\nratio: 1.132"
    assert final.verdict is not None and final.verdict.verdicts[0].kind == "goal_check"
    ledger.completed["goal_check"] = {OUTPUT: "1229 primes; estimate 1085.74; ratio 0.132"}
    final = final_message("succeeded", "", ledger, Scheduler(tasks, {"coder": 1}), 1, budget, GOAL)
    assert final.status == "unverified" and final.answer == "estimate 2500, ratio 0.4916"


def test_a_value_given_with_the_goal_is_no_computed_value_to_agree_on() -> None:
    # a live run: the goal check restated the limit it was given, the plan's values did not
    tasks = {
        "count": task("count", "coder", ["limit"], ["num_primes"]),
        "estimate": task("estimate", "coder", ["limit"], ["estimate"]),
        "report": task("report", "coder", ["num_primes", "estimate"], ["answer"]),
        "goal_check": goal_check_task(["limit"]),
    }
    ledger = Ledger()
    held = "{'num_primes': 1229, 'estimate': 1085.7362, 'ratio': 1.1319}"  # more than its own
    ledger.completed["count"] = {"num_primes": held}
    ledger.completed["estimate"] = {"estimate": 1085.7362}
    ledger.completed["report"] = {"answer": 0.1229}
    ledger.completed["goal_check"] = {OUTPUT: "Below 10000: 1229 (estimate 1085.7362, 1.1319)"}
    ledger.checked = {t: [verdict("agreement", True)] for t in ("count", "estimate")}
    ledger.checked["goal_check"] = UNAGREED
    goal = stated(Goal(text="Count the primes below the limit.", inputs={"limit": 10000}))
    assert goal.endswith('{"limit": 10000}')
    budget = BudgetTracker(BudgetSettings())
    final = final_message("succeeded", "", ledger, Scheduler(tasks, {"coder": 1}), 1, budget, goal)
    assert final.status == "succeeded", final.reason
    assert final.answer == f"num_primes: {held}\nestimate: 1085.7362"


def test_a_researchers_statement_is_no_value_the_plan_computed() -> None:
    """A live 1.5B quickstart (74972e8): the plan's last task was given a count, an estimate
    and a difference, and the researcher's statement, whose "greater than 1" stood in for the
    goal check's ratio of 1.13: `succeeded` with no ratio."""
    statement = "A prime is a natural number greater than 1 with no divisors but 1 and itself."
    tasks = {
        "read": task("read", "researcher", [], ["statement"]),
        "count": task("count", "coder", ["limit"], ["prime_count"]),
        "estimate": task("estimate", "coder", ["limit"], ["estimate"]),
        "diff": task("diff", "coder", ["prime_count", "estimate"], ["difference"]),
        "report": task(
            "report", "coder", ["statement", "prime_count", "estimate", "difference"], ["answer"]
        ),
        "goal_check": goal_check_task(["limit"]),
    }
    ledger = Ledger()
    ledger.completed["read"] = {"statement": statement}
    for tid, out, value in (
        ("count", "prime_count", 1229),
        ("estimate", "estimate", 1085.7362),
        ("diff", "difference", 143.2638),
    ):
        ledger.completed[tid] = {out: value}
        ledger.checked[tid] = [verdict("agreement", True)]
    ledger.completed["report"] = {"answer": "count 1231, estimate 1085.7362, difference 145.26"}
    ledger.completed["goal_check"] = {
        OUTPUT: "Estimate: 1085.7362\nCount of primes up to 10000: 1229\nComparison: 1.13 times close."
    }
    ledger.checked["goal_check"] = UNAGREED
    goal = stated(Goal(text=GOAL, inputs={"limit": 10000}))
    budget = BudgetTracker(BudgetSettings())
    final = final_message("succeeded", "", ledger, Scheduler(tasks, {"coder": 1}), 1, budget, goal)
    assert final.status == "unverified"
    assert final.answer == "count 1231, estimate 1085.7362, difference 145.26"
    # with the ratio computed instead of the difference, the plan's values answer
    ledger.completed["diff"] = {"difference": 1.1319}
    final = final_message("succeeded", "", ledger, Scheduler(tasks, {"coder": 1}), 1, budget, goal)
    assert final.status == "succeeded", final.reason
    assert final.answer == "prime_count: 1229\nestimate: 1085.7362\ndifference: 1.1319"


QUICKSTART = (
    "Count the prime numbers below the given limit and compare the count with what the prime "
    "number theorem predicts; report the count, the estimate and how close they are (the "
    'count divided by the estimate).\n{"limit": 10000}'
)
RATIO = "Count of primes below 10000: 1229\nEstimate: 1085.7362\nRatio of count to estimate: 1.1320"
EXCESS = "{'count': 1229, 'estimate': 1085.7362, 'difference': 0.132}"


def test_the_goals_own_relation_decides_between_the_plan_and_the_goal_check() -> None:
    """A live 1.5B quickstart (74972e8): the plan gave the count's excess over the estimate for
    "how close", the goal check's two programs the ratio the goal defines; `unverified`."""
    budget = BudgetTracker(BudgetSettings())
    final = final_message(
        "succeeded", "", ran(EXCESS, RATIO, AGREED, ""), scheduler(), 1, budget, QUICKSTART
    )
    assert final.status == "succeeded", final.reason
    assert final.answer == RATIO
    assert final.verdict is not None and "hold the goal's own definition" in final.verdict.checks[0]
    # the other way round the goal check's answer does not stand at all, nor does the plan's
    final = final_message(
        "succeeded", "", ran(RATIO, EXCESS, AGREED, ""), scheduler(), 1, budget, QUICKSTART
    )
    assert final.status == "unverified" and final.answer == RATIO
    assert standing(None, EXCESS, AGREED, QUICKSTART, backed=True) is None
    # a goal that defines no relation leaves the two readings undecided, as before
    plain = QUICKSTART.replace(" (the count divided by the estimate)", "")
    final = final_message(
        "succeeded", "", ran(EXCESS, RATIO, AGREED, ""), scheduler(), 1, budget, plain
    )
    assert final.status == "unverified" and "two readings of the goal disagree" in final.reason


def test_a_plan_and_goal_check_agreeing_on_a_broken_relation_are_not_verified() -> None:
    """Live 1.5B quickstarts (7580443): plan and goal check alike gave 0.13 for the ratio."""
    budget = BudgetTracker(BudgetSettings())
    both = "count: 1229, estimate: 1085.74, how close: 0.13"
    final = final_message(
        "succeeded", "", ran(both, both, AGREED, ""), scheduler(), 1, budget, QUICKSTART
    )
    assert final.status == "unverified"
    assert "the goal defines a value as (the count divided by the estimate)" in final.reason
    right = "count: 1229, estimate: 1085.74, how close: 1.13"
    final = final_message(
        "succeeded", "", ran(right, right, AGREED, ""), scheduler(), 1, budget, QUICKSTART
    )
    assert final.status == "succeeded", final.reason


def test_an_answer_no_second_program_gave_yields_to_two_programs_that_agree() -> None:
    """Live 1.5B quickstarts (74972e8-254eb0a): a plan's answer task alone gave a count of 0.25
    and an estimate of 4915.0, against a goal check whose two programs gave 1229, 1085.74 and
    1.13; `unverified` as two readings. Against an answer a second program gave, the two
    readings stay undecided; a goal check stating fewer values does not stand."""
    budget = BudgetTracker(BudgetSettings())
    alone = "The count of primes is 0.25, the estimate is 4915.0."
    final = final_message(
        "succeeded", "", ran(alone, RIGHT, AGREED, "", backed=False), scheduler(), 1, budget, GOAL
    )
    assert final.status == "succeeded", final.reason
    assert final.answer == RIGHT
    assert final.verdict is not None and "no second program gave it" in final.verdict.checks[0]
    backed = final_message(
        "succeeded", "", ran(alone, RIGHT, AGREED, "", backed=True), scheduler(), 1, budget, GOAL
    )
    assert backed.status == "unverified" and "two readings of the goal disagree" in backed.reason
    part = "ratio 1.132"  # one value against the plan's two
    final = final_message(
        "succeeded", "", ran(alone, part, AGREED, "", backed=False), scheduler(), 1, budget, GOAL
    )
    assert final.status == "unverified"
    one = ran(alone, RIGHT, UNAGREED, "", backed=False)  # one program against one: a draft
    final = final_message("succeeded", "", one, scheduler(), 1, budget, GOAL)
    assert final.status == "unverified" and final.answer == alone


def test_a_goal_check_answering_with_named_values_stands_as_text() -> None:
    """A live 1.5B quickstart (254eb0a): the goal check's two programs gave an object of the
    right three values, the plan's answer task alone an estimate of 5000.1: the object never
    stood, since only text was read."""
    budget = BudgetTracker(BudgetSettings())
    named: JsonValue = {"count": 1229, "estimate": 1085.7362, "ratio": 1.132}
    alone = "{'prime_count': 1229, 'estimate': 5000.1099, 'ratio': 0.2458}"
    ledger = ran(alone, named, AGREED, "", backed=False)
    final = final_message("succeeded", "", ledger, scheduler(), 1, budget, QUICKSTART)
    assert final.status == "succeeded", final.reason
    assert final.answer == json.dumps(named)
    assert standing(alone, named, UNAGREED, QUICKSTART, backed=False) is None


def test_a_plan_answer_that_is_part_of_the_confirmed_goal_check_lets_it_stand() -> None:
    """A live 1.5B answer task, sent back for a ratio that broke the goal's relation, answered
    the count alone, 1229, which a second program gave too, beside a goal check whose two
    programs gave 1229, 1085.74 and 1.132: the plan's values are the goal check's, which
    stands as it would had the plan given nothing; a part that disagrees does not."""
    budget = BudgetTracker(BudgetSettings())
    final = final_message(
        "succeeded", "", ran("1229", RIGHT, AGREED, "", backed=True), scheduler(), 1, budget, GOAL
    )
    assert final.status == "succeeded", final.reason
    assert final.answer == RIGHT
    assert final.verdict is not None and "gives part of theirs" in final.verdict.checks[0]
    other = ran("1228", RIGHT, AGREED, "", backed=True)  # a part that disagrees
    final = final_message("succeeded", "", other, scheduler(), 1, budget, GOAL)
    assert final.status == "unverified" and "two readings of the goal disagree" in final.reason
    unconfirmed = ran("1229", RIGHT, UNAGREED, "", backed=True)  # one program: a draft
    final = final_message("succeeded", "", unconfirmed, scheduler(), 1, budget, GOAL)
    assert final.status == "unverified"
