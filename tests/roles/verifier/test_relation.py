"""The relation a goal defines between values its answer reports, read by code: which goals
define one, and which answers hold it, break it, or cannot be checked against it."""

from __future__ import annotations

from roles.verifier.relation import holds, relation_in

GOAL = (
    "Count the prime numbers below the given limit and compare the count with what the prime "
    "number theorem predicts; report the count, the estimate and how close they are (the "
    'count divided by the estimate).\n{"limit": 10000}'
)


def test_a_parenthesis_that_is_only_a_relation_defines_one() -> None:
    relation = relation_in(GOAL)
    assert relation is not None and relation.op == "divided by"
    assert relation.left == {"count"} and relation.right == {"estimate"}
    # no parenthesis, one that says more, two, or operands the goal names nowhere else
    assert relation_in("Report the allowance, the hotel and the total (allowance plus hotel).")
    assert relation_in("What is the total reimbursement (daily allowance plus hotel)?") is None
    assert relation_in("Report the count divided by the estimate.") is None
    assert relation_in("the interest (60 times that payment minus the amount borrowed)") is None
    assert relation_in("(the a plus the b) and (the c minus the d)") is None


def test_an_answer_naming_both_values_must_state_what_they_give() -> None:
    relation = relation_in(GOAL)
    assert relation is not None
    # live 1.5B quickstarts: the ratio, as JSON, labelled lines with digits in the names, a percentage
    assert holds(relation, '{"count": 1229, "estimate": 1085.7362, "ratio": 1.131950831715873}')
    assert holds(
        relation,
        "Count of primes less than 10000: 1229\nEstimate from prime number theorem: 1085.736\n"
        "Difference between the estimate and the count: 143.26\nRatio of count to estimate: 1.132",
    )
    assert holds(relation, "count: 1229, estimate: 1085.74, close: 113%")
    assert holds(
        relation,  # a live goal check's: the ratio's name says "Estimate" in its parenthesis
        "Count of primes below 10000: 1229\nEstimated number of primes: 1085.7362047581294\n"
        "Ratio (Actual / Estimate): 1.13",
    )
    # the count's excess for the ratio, no ratio at all, and a "1" from a sentence
    assert holds(relation, "{'count': 1229, 'estimate': 1085.7362, 'difference': 0.132}") is False
    assert holds(relation, "count: 1229\nestimate: 1086\nthey are not close") is False
    assert (
        holds(relation, "prime_count: 1229\nestimate: 1085.74\nstatement: greater than 1") is False
    )
    # "Estimated count" is the estimate where "Computed count" is the count (a live 1.5B plan's
    # answer at 8f79ffc gave their difference, and the relation said nothing)
    live = "Computed count: 1229\nEstimated count: 1085.7362047581294\nDifference: 143.263795"
    assert holds(relation, live) is False
    assert holds(relation, "exact_count: 1229\nestimated_count: 1085.74\ncloseness: 0.13") is False
    assert holds(relation, "Actual count: 1229\nEstimated count: 1085.74\nRatio: 1.132")
    # a near miss in the third decimal is another number
    assert holds(relation, "count: 1229, estimate: 1085.74, ratio: 1.135") is False


def test_without_both_values_named_once_there_is_nothing_to_check() -> None:
    relation = relation_in(GOAL)
    assert relation is not None
    assert holds(relation, "There are 1229 primes; the estimate is 1085.74; ratio 0.13.") is None
    # a label of both operands' words beside one of the other's and more words besides
    assert holds(relation, "count: 1229\ncount_estimate_ratio: 1.13") is None
    assert holds(relation, "estimated_count: 1085.74\ncount_estimated: 1229\nratio: 1.13") is None
    assert holds(relation, "count: 1229, estimate: 0, ratio: 1") is False  # divided by 0
