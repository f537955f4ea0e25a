"""The verifier's check in the real sandbox: it fails a wrong answer and passes a right one;
one that passes an empty answer, or does not run, counts for nothing."""

from __future__ import annotations

from typing import cast

import pytest

from roles.execution import CodeRunner, ExecutionResult
from roles.verifier.checks import VerifierCheck, judge, request
from roles.verifier.spec import (
    AnswerSpec,
    Property,
    StatedProperties,
    check_program,
    clause_program,
    stated,
)

pytestmark = [pytest.mark.docker, pytest.mark.timeout(120)]

ROOT = """
def check(answer, numbers):
    assert numbers, "no number"
    assert abs(numbers[0] ** 2 - n) < 1e-6, "its square is not n"
"""


def runner(sandbox: object):  # type: ignore[no-untyped-def]
    code_runner = cast(CodeRunner, sandbox)

    async def run(code: str, files: dict[str, bytes]) -> tuple[ExecutionResult, str]:
        return await code_runner.execute(code, files, 20), "exec-1"

    return run


async def test_an_inverse_operation_fails_the_wrong_root(shared_sandbox: object) -> None:
    judged = await judge(
        VerifierCheck(ROOT), ["The root is 12.", "It is 13"], {"n": 144}, runner(shared_sandbox)
    )
    assert judged.usable
    assert judged.outcomes[0] == ("pass", "")
    assert judged.outcomes[1] == ("fail", "its square is not n")


async def test_a_check_that_passes_an_empty_answer_counts_for_nothing(
    shared_sandbox: object,
) -> None:
    vacuous = VerifierCheck("def check(answer, numbers):\n    assert isinstance(answer, str)\n")
    judged = await judge(vacuous, ["12"], {}, runner(shared_sandbox))
    assert not judged.usable and "empty answer" in judged.why_not


async def test_a_check_that_does_not_run_counts_for_nothing(shared_sandbox: object) -> None:
    broken = VerifierCheck("def check(answer, numbers):\n    return undefined_name\n")
    judged = await judge(broken, ["12", "13"], {}, runner(shared_sandbox))
    assert not judged.usable and "NameError" in judged.why_not


def test_the_verifier_sees_the_goal_and_values_and_no_answer() -> None:
    messages = request("What is the square root of n?", {"n": 144}, ["table.csv"])
    text = "\n".join(str(m.content) for m in messages)
    assert "n = 144" in text and "table.csv" in text and "every right answer" in text


async def test_a_stated_count_catches_a_fraction_and_a_negative_and_not_the_goals_numbers(
    shared_sandbox: object,
) -> None:
    spec = AnswerSpec(kind="count")
    answers = [
        "319 days from 2024.5 to the end",  # 2024.5 is quoted from the goal: not judged
        "319.5 days",
        "-19 days",
        "no idea",
    ]
    check = VerifierCheck(check_program(spec, [2024.5]))
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert judged.usable
    assert [o for o, _ in judged.outcomes] == ["pass", "fail", "fail", "fail"]


async def test_a_computed_zero_is_no_evidence_for_a_count_or_a_probability(
    shared_sandbox: object,
) -> None:
    count = VerifierCheck(check_program(AnswerSpec(kind="count", values_asked=2), []))
    answers = ["Full bags: 6, remaining: 0", "Full bags: 47, remaining: 3"]
    judged = await judge(count, answers, {}, runner(shared_sandbox))
    assert [o for o, _ in judged.outcomes] == ["fail", "pass"]
    assert "not 0" in judged.outcomes[0][1]
    probability = VerifierCheck(check_program(AnswerSpec(kind="probability"), []))
    judged = await judge(
        probability, ["It is 0.0.", "It is 1.", "It is 0.04"], {}, runner(shared_sandbox)
    )
    assert [o for o, _ in judged.outcomes] == ["fail", "fail", "pass"]


async def test_a_probability_as_a_fraction_passes_and_one_above_1_fails(
    shared_sandbox: object,
) -> None:
    spec = AnswerSpec(kind="probability")
    check = VerifierCheck(check_program(spec, []))
    judged = await judge(
        check, ["It is 3/8.", "It is 1.25", "about 11.6 %"], {}, runner(shared_sandbox)
    )
    assert [o for o, _ in judged.outcomes] == ["pass", "fail", "pass"]


async def test_a_percentage_may_be_a_change_of_either_sign_but_not_0_nor_a_fall_over_100(
    shared_sandbox: object,
) -> None:
    check = VerifierCheck(check_program(AnswerSpec(kind="percentage"), []))
    answers = ["It fell by -74.31%", "up 448.26 %", "a share of 12.5%", "0%", "-150%"]
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert [o for o, _ in judged.outcomes] == ["pass", "pass", "pass", "fail", "fail"]


async def test_a_date_may_be_a_year(shared_sandbox: object) -> None:
    check = VerifierCheck(check_program(AnswerSpec(kind="date"), []))
    answers = ["It was higher in 2019", "March 3", "73.2 million", "12019 units"]
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert [o for o, _ in judged.outcomes] == ["pass", "pass", "fail", "fail"]


async def test_a_yes_or_no_goal_needs_yes_or_no(shared_sandbox: object) -> None:
    spec = AnswerSpec(kind="yes_or_no")
    check = VerifierCheck(check_program(spec, []))
    judged = await judge(check, ["Yes, it is prime.", "It is 7"], {}, runner(shared_sandbox))
    assert [o for o, _ in judged.outcomes] == ["pass", "fail"]


async def test_a_defining_property_the_goal_states_is_checked_against_each_candidate(
    shared_sandbox: object,
) -> None:
    # "the smallest number divisible by each of 4, 6 and 10": 60 holds it; 1 (an
    # accumulator's starting value) and 40 do not
    spec = StatedProperties(
        kind="count",
        properties=[
            Property(kind="divisible_by", values=[4, 6, 10]),
            Property(kind="between", values=[1, 999]),  # 999: not in the goal, set aside
        ],
    )
    assert stated(spec, [4, 6, 10]) == spec.properties[:1]
    check = VerifierCheck(check_program(spec, [4, 6, 10]))
    answers = ["The smallest is 60.", "It is 1", "40"]
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert judged.usable
    assert [o for o, _ in judged.outcomes] == ["pass", "fail", "fail"]
    assert "divisible by each of [4, 6, 10]" in judged.outcomes[2][1]


async def test_an_ordering_of_the_given_numbers_and_a_total_are_checked(
    shared_sandbox: object,
) -> None:
    spec = StatedProperties(
        kind="text",
        properties=[
            Property(kind="ordering_of", values=[5, 2, 9]),
            Property(kind="sums_to", values=[16]),
        ],
    )
    check = VerifierCheck(check_program(spec, [5, 2, 9, 16]))
    answers = ["[2, 5, 9]", "[2, 5, 9, 9]", "[2, 5]"]
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert [o for o, _ in judged.outcomes] == ["pass", "fail", "fail"]


def test_the_verifier_is_asked_for_properties_only_when_they_are_on() -> None:
    plain = request("Smallest number divisible by each of 4, 6 and 10?", {}, [])
    asked = request("Smallest number divisible by each of 4, 6 and 10?", {}, [], None, True)
    assert "divisible_by" not in str(plain[0].content)
    assert "divisible_by" in str(asked[0].content)
    assert "properties" not in AnswerSpec.model_json_schema()["properties"]
    assert "properties" in StatedProperties.model_json_schema()["properties"]


async def test_a_clause_asked_for_needs_two_words_of_its_own_not_a_figure(
    shared_sandbox: object,
) -> None:
    check = VerifierCheck(clause_program())
    answers = [
        "(1) Includes deferred initial direct costs which are eliminated in IBM's results.",
        "lower level of R&D grants",
        "$22,446 million",
        "Note 35 million",
        "USD 12 thousand",
    ]
    judged = await judge(check, answers, {}, runner(shared_sandbox))
    assert judged.usable
    assert [o for o, _ in judged.outcomes] == ["pass", "pass", "fail", "fail", "fail"]
