"""The rule that decides `succeeded`, on verdicts made by hand (no Docker, no NATS): an
answer is verified only when no check of it failed and a check written without seeing it
passed; agreement alone is not independent; the goal check must agree, by the program it
kept or, where its programs were left tied, by one of them."""

from __future__ import annotations

from bus.verdicts import CheckVerdict
from roles.verifier.goal_check import GoalCheck
from roles.verifier.rule import unverified_reason, verdict_of


def v(kind: str, passed: bool, independent: bool) -> CheckVerdict:
    return CheckVerdict.model_validate(
        {"kind": kind, "what": f"{kind} check", "passed": passed, "independent": independent}
    )


def test_agreement_alone_is_not_verified() -> None:
    verdict = verdict_of("25", ["t"], {"t": [v("agreement", True, False)]})
    assert not verdict.verified
    assert unverified_reason(verdict) == "no check written without seeing the answer passed it"


def test_an_independent_pass_and_no_failure_is_verified() -> None:
    checked = {"t": [v("agreement", True, False), v("property", True, True)]}
    assert verdict_of("25", ["t"], checked).verified


def test_any_failed_check_is_not_verified_and_is_the_reason() -> None:
    checked = {"t": [v("agreement", False, False), v("property", True, True)]}
    verdict = verdict_of("25", ["t"], checked)
    assert not verdict.verified and unverified_reason(verdict) == "t: agreement check"


def test_no_answer_is_never_verified() -> None:
    assert not verdict_of(None, [], {}).verified
    assert not verdict_of("  ", ["t"], {"t": [v("property", True, True)]}).verified


def test_only_the_answers_own_tasks_count() -> None:
    checked = {"t": [v("agreement", True, False)], "other": [v("property", True, True)]}
    assert not verdict_of("25", ["t"], checked).verified


def test_the_goal_check_must_agree() -> None:
    checked = {"t": [v("property", True, True)]}
    held = verdict_of(
        "There are 25 primes", ["t"], checked, GoalCheck("How many primes below 100?", "25")
    )
    assert held.verified
    differs = verdict_of("There are 25 primes", ["t"], checked, GoalCheck("How many primes?", "24"))
    assert not differs.verified
    missing = verdict_of("25", ["t"], checked, GoalCheck("goal", None))
    assert not missing.verified


def test_a_tasks_failed_agreement_is_answered_by_the_goal_check_agreeing() -> None:
    checked = {"t": [v("agreement", False, False), v("property", True, True)]}
    goal = "Count the primes below 100 and their share of 100."
    held = verdict_of("25 primes, 0.25 of them", ["t"], checked, GoalCheck(goal, "25 and 0.25"))
    assert held.verified
    assert any("goal check's own program" in c for c in held.checks)
    # the goal check disagreeing leaves the failure standing, and so does a failed property
    assert not verdict_of("25 primes", ["t"], checked, GoalCheck(goal, "24")).verified
    broken = {"t": [v("agreement", False, False), v("property", False, True)]}
    assert not verdict_of("25 primes", ["t"], broken, GoalCheck(goal, "25")).verified


def test_a_goal_check_left_tied_agrees_by_any_of_its_programs() -> None:
    checked = {"t": [v("agreement", True, False)]}
    goal = "Count the primes below 10000 and estimate them by x / ln x."
    plan = "1229 primes; the estimate is 1085.74; the ratio 1.132"
    kept, other = "1229 and 1085.0, ratio 1.1327", "1229 primes, estimated 1085.7362"
    assert not verdict_of(plan, ["t"], checked, GoalCheck(goal, kept)).verified
    held = verdict_of(plan, ["t"], checked, GoalCheck(goal, kept, tied=[other]))
    assert held.verified
    assert any("disagreed, and one of them gives these values" in c for c in held.checks)
    # a tied program the plan does not agree with, or none at all, confirms nothing
    assert not verdict_of(plan, ["t"], checked, GoalCheck(goal, kept, tied=["1230"])).verified
    assert not verdict_of(plan, ["t"], checked, GoalCheck(goal, kept, tied=[None, ""])).verified


def test_a_goal_check_stating_the_ratio_as_a_percentage_agrees() -> None:
    """A live 1.5B quickstart (d7e198d): the plan answered 1.132, the goal check's program
    that gave the plan's count and estimate said "113% close", and the run ended unverified."""
    checked = {"t": [v("agreement", True, False)]}
    goal = 'Count the primes below the limit; report the count divided by the estimate.\n{"limit": 10000}'
    plan = '{"count": 1229, "estimate": 1085.7362047581294, "ratio": 1.131950831715873}'
    kept = "Count: 1229\nEstimate: 1217.97630146155\nCount divided by Estimate: 1.00905"
    said = "The number of primes below 10000 is 1229. The estimate is 1085.736, which is {}% close."
    held = verdict_of(plan, ["t"], checked, GoalCheck(goal, kept, tied=[said.format(113)]))
    assert held.verified
    # another percentage, or the plan's excess over the estimate, is not the same ratio
    for tied, answer in (
        (said.format(111), plan),
        (said.format(113), plan.replace("1.13", "0.13")),
    ):
        assert not verdict_of(answer, ["t"], checked, GoalCheck(goal, kept, tied=[tied])).verified


def test_an_answer_stating_part_of_what_the_goal_check_computed_is_not_verified() -> None:
    """A live 1.5B quickstart (44904a0) answered the estimate alone, 1085.74, and the goal
    check's count, estimate and ratio agreed with it by containing it: `succeeded`."""
    checked = {"t": [v("agreement", True, False)]}
    goal = 'Report the count, the estimate and the count divided by the estimate.\n{"limit": 10000}'
    whole = "Count: 1229\nEstimate: 1085.7362047581294\nRatio: 1.13"
    part = verdict_of("1085.7362047581294", ["t"], checked, GoalCheck(goal, whole))
    assert not part.verified
    assert any("answers part of the goal" in c for c in part.checks)
    tied = verdict_of("1085.74", ["t"], checked, GoalCheck(goal, "1229", tied=[whole]))
    assert not tied.verified
    plan = "There are 1229 primes below 10000; the estimate is 1085.74 and the ratio 1.132."
    assert verdict_of(plan, ["t"], checked, GoalCheck(goal, whole)).verified


def test_the_same_numbers_under_other_names_do_not_agree() -> None:
    """The same live run's goal check: one program computed "Estimate: 1.13, Ratio: 1085.74"
    (the count over the estimate, named the estimate), another the right three."""
    checked = {"t": [v("agreement", True, False)]}
    goal = 'Report the count, the estimate and the count divided by the estimate.\n{"limit": 10000}'
    plan = '{"count": 1229, "estimate": 1085.7362047581294, "ratio": 1.131950831715873}'
    swapped = "Count: 1229, Estimate: 1.13, Ratio: 1085.74"
    assert not verdict_of(plan, ["t"], checked, GoalCheck(goal, swapped)).verified
    assert verdict_of(
        plan,
        ["t"],
        checked,
        GoalCheck(
            goal, swapped.replace("1.13", "X").replace("1085.74", "1.13").replace("X", "1085.74")
        ),
    ).verified


def test_a_tied_program_answering_part_of_the_goal_verifies_no_partial_answer() -> None:
    """A live 1.5B quickstart (7580443) answered a count and an estimate, no ratio ("not
    close"); a goal-check program left tied gave the same two values, and the run ended
    `succeeded` where the goal asks for three."""
    checked = {"t": [v("agreement", True, False)]}
    goal = 'Report the count, the estimate and the count divided by the estimate.\n{"limit": 10000}'
    plan = "There are 1229 primes below 10000; the estimate is 1086, so they are not close."
    kept = "Count: 1230, Estimate: 1085.74, Ratio: 1.1329"
    partial = "1229 primes, estimated 1086"
    held = verdict_of(plan, ["t"], checked, GoalCheck(goal, kept, tied=[partial]))
    assert not held.verified
    # the same tie with a kept program of no more values than the answer still verifies it
    assert verdict_of(
        plan, ["t"], checked, GoalCheck(goal, "1230 primes, 1085.7", tied=[partial])
    ).verified
