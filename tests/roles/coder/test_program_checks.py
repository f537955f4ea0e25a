"""What a program that ran may still have got wrong, read from its code (pure logic)."""

from __future__ import annotations

import json

from bus.payloads import TaskSpec
from roles.coder.checks import CHECKS, Attempt, brief, checks_for, computed, unfloored
from roles.coder.program_checks import (
    floored,
    inputs_hint,
    missing_inputs,
    same_program,
    unchecked_problem,
    written_in,
)
from roles.execution import ExecutionResult
from roles.verifier.agreement import quoted_in
from roles.verifier.goal_check import OUTPUT, goal_check_task

GOAL = quoted_in("How many prime numbers are there below 10000?")
STATED = """
import json
inputs = json.load(open("inputs.json"))
answer = "There are 7841 prime numbers below 10000."
json.dump({"answer": answer}, open("outputs.json", "w"))
"""
COMPUTED = """
import json
count = sum(all(n % d for d in range(2, int(n**0.5) + 1)) for n in range(2, 10000))
json.dump({"answer": f"There are {count} prime numbers below 10000."}, open("outputs.json", "w"))
"""


def test_a_result_written_in_as_a_literal_is_named() -> None:
    assert written_in(STATED, {"answer": "There are 7841 prime numbers below 10000."}, GOAL) == [
        "answer"
    ]
    problem = unchecked_problem(STATED, {"answer": "7841 primes"}, {}, GOAL)
    assert "writes it in as a literal (answer = 7841 primes)" in problem


def test_an_answer_sentence_written_whole_is_named_whatever_its_numbers() -> None:
    code = 'answer = "There are 10 leap years from 1900 to 2100 inclusive."\nprint(answer)'
    years = quoted_in("How many leap years are there from 1900 to 2100 inclusive?")
    assert written_in(
        code, {"answer": "There are 10 leap years from 1900 to 2100 inclusive."}, years
    )
    assert not written_in(code, {"answer": "There are leap years from 1900 to 2100."}, years)


def test_a_computed_result_a_goal_number_or_a_small_count_is_not() -> None:
    assert written_in(COMPUTED, {"answer": "There are 1229 prime numbers below 10000."}, GOAL) == []
    assert written_in("x = 10000\nprint(x)", {"answer": 10000}, GOAL) == []  # the goal's own
    assert written_in("print(sum(range(4)) + 0 * 6)", {"answer": 6}, GOAL) == []  # small count
    assert written_in("print(", {"answer": 7841}, GOAL) == []  # not Python: nothing to read


def test_inputs_the_file_does_not_hold_are_named_even_behind_a_default() -> None:
    code = """
import json
inputs = json.load(open("inputs.json"))
balance = inputs.get('initial_amount', 0) * (1 + inputs['rate']) ** inputs.get('years', 0)
"""
    assert missing_inputs(code, {"rate": 0.05}) == ["initial_amount", "years"]
    assert missing_inputs(code, {"rate": 0.05, "initial_amount": 1, "years": 2}) == []
    problem = unchecked_problem(code, {"answer": 0.0}, {}, frozenset())
    assert (
        "reads 'initial_amount', 'rate', 'years' from inputs.json, which holds nothing" in problem
    )
    assert "from the goal's own text" in problem
    assert "'years'" in inputs_hint(code, {"rate": 0.05})
    assert inputs_hint(code, {"rate": 1, "initial_amount": 1, "years": 1}) == ""


def test_inputs_loaded_in_a_with_block_are_read_too() -> None:
    code = """
import json
with open("inputs.json") as f:
    data = json.load(f)
print(data["text"], data.get("n"))
"""
    assert missing_inputs(code, {"text": "hi"}) == ["n"]


def test_nearly_the_same_code_is_one_computation() -> None:
    # fibonacci-40 (1.5B): one off-by-one loop, the result printed or written
    loop = "def fib(n):\n    a, b = 1, 1\n    for _ in range(2, n + 1):\n        a, b = b, a + b\n    return b\n"
    printed = loop + "answer = fib(40)\nprint(answer)\n"
    written = (
        loop
        + 'inputs = {}\nanswer = fib(40)\njson.dump({"answer": answer}, open("outputs.json", "w"))\n'
    )
    assert same_program(printed, written)
    other = "import functools\n@functools.cache\ndef f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\nprint(f(40))\n"
    assert not same_program(printed, other)


def test_programs_computing_inside_what_they_print_are_compared_whole() -> None:
    det = (
        'import json, numpy\nm = json.load(open("inputs.json"))["m"]\nprint(numpy.linalg.det(m))\n'
    )
    by_hand = "print(m[0][0] * m[1][1] - m[0][1] * m[1][0])\n"
    assert not same_program(det, by_hand)  # both compute only inside their output
    assert same_program(by_hand, "# the determinant\n" + by_hand)


def test_the_same_code_differently_commented_is_one_program() -> None:
    spaced = "# check\nimport json\n\n\ncount = sum(all(n % d for d in range(2, int(n**0.5) + 1))"
    spaced += " for n in range(2, 10000))  # primes\n"
    spaced += 'json.dump({"answer": f"There are {count} prime numbers below 10000."}, '
    spaced += 'open("outputs.json", "w"))\n'
    assert same_program(COMPUTED, spaced)
    assert not same_program(COMPUTED, STATED)
    assert not same_program("print(", "print(")  # not Python: not known to be one


def test_inputs_read_without_loading_them_are_checked_against_what_is_given() -> None:
    from roles.coder.program_checks import missing_inputs

    code = "start = inputs['start_time']\nprint(start)"
    assert missing_inputs(code, {}) == ["start_time"]
    assert missing_inputs(code, {"start_time": "09:10"}) == []


def test_a_report_that_writes_the_numbers_it_was_given_is_not_sent_back() -> None:
    """A live 1.5B report task wrote the count and estimate it was given as literals."""
    report = 'answer = "Count: 1229, estimate: 1085.74, ratio: 1.132"\nprint(answer)'
    run = ExecutionResult(exit_code=0, stdout="Count: 1229, estimate: 1085.74, ratio: 1.132\n")
    given = {"prime_count": 1229, "estimate": 1085.74, "ratio": 1.132}
    assert computed(Attempt(report, run, ["answer"], given, GOAL)) == ""
    made_up = {"prime_count": 1229, "estimate": 1085.74}  # the ratio is worked out elsewhere
    assert "writes it in as a literal" in computed(Attempt(report, run, ["answer"], made_up, GOAL))


def test_a_quotient_floored_by_a_fraction_is_sent_back() -> None:
    """Live 1.5B goal checks gave the prime number theorem's estimate as 1085.0, not 1085.74."""
    cut = "import math\nlimit = 10000\nprint(limit // math.log(limit))"
    run = ExecutionResult(exit_code=0, stdout="1085.0\n")
    problem = unfloored(Attempt(cut, run, ["estimate"], {"limit": 10000}, GOAL))
    assert "`limit // math.log(limit)`" in problem and "Divide with `/`" in problem
    assert floored("from math import log, sqrt\na = 7 // log(3)\nb = 9 // sqrt(2)") == [
        "7 // log(3)",
        "9 // sqrt(2)",
    ]
    assert floored("x = 10 // 2.5\ny = 10 // (3 / 4)") == ["10 // 2.5", "10 // (3 / 4)"]
    whole = "import math\nlimit = 10000\nprint(limit / math.log(limit), limit // 7, len(s) // 2)"
    assert floored(whole) == []
    assert unfloored(Attempt(whole, run, ["estimate"], {"limit": 10000}, GOAL)) == ""


QUICKSTART = (
    "Count the prime numbers below the given limit and compare the count with what the prime "
    "number theorem predicts; report the count, the estimate and how close they are (the "
    'count divided by the estimate).\n{"limit": 10000}'
)


def test_an_answer_breaking_the_goals_own_definition_is_sent_back() -> None:
    """A live 1.5B answer task (43c6b76) gave a ratio of 0.00104 beside a count of 1229 and an
    estimate of 1085.74, and goal check programs the count's excess for the ratio."""
    (check,) = [
        c
        for c in checks_for(
            TaskSpec(id="r", role="coder", description="r", outputs=["answer"]), QUICKSTART
        )
        if c not in CHECKS
    ]
    code = "print('x')"
    broken = ExecutionResult(
        exit_code=0, stdout="{'count': 1229, 'estimate': 1085.7362, 'ratio': 0.0010425}\n"
    )
    problem = check(Attempt(code, broken, ["answer"]))
    assert "(the count divided by the estimate)" in problem
    assert "1229 and 1085.74" in problem and "1.13195" in problem
    right = ExecutionResult(exit_code=0, stdout="count: 1229\nestimate: 1085.7362\nratio: 1.132\n")
    assert check(Attempt(code, right, ["answer"])) == ""
    alone = ExecutionResult(exit_code=0, stdout="The ratio is 0.5\n")  # names neither operand
    assert check(Attempt(code, alone, ["answer"])) == ""
    excess = json.dumps({OUTPUT: "Count: 1229\nEstimate: 1085.74\nDifference: 0.132"})
    checking = ExecutionResult(exit_code=0, stdout="", files={"outputs.json": excess.encode()})
    assert "(the count divided by the estimate)" in check(Attempt(code, checking, [OUTPUT]))


def test_only_a_task_answering_a_goal_that_defines_a_value_is_held_to_it() -> None:
    answer = TaskSpec(id="a", role="coder", description="a", outputs=["answer"])
    step = TaskSpec(id="s", role="coder", description="s", outputs=["count", "ratio"])
    assert len(checks_for(answer, QUICKSTART)) == len(CHECKS) + 1
    assert checks_for(goal_check_task(["limit"]), QUICKSTART)[-1] not in CHECKS
    assert checks_for(step, QUICKSTART) == CHECKS
    assert checks_for(answer, "Count the primes below 10000.") == CHECKS


def test_a_goal_check_stating_its_data_not_its_values_is_sent_back() -> None:
    """A live 1.5B goal check (8f79ffc) printed the primes below 10000 as its answer; three
    values stated in a sentence pass, and only the goal check is held to it."""
    code = "print('x')"
    primes = [p for p in range(2, 10000) if all(p % d for d in range(2, int(p**0.5) + 1))]
    listed = ExecutionResult(
        exit_code=0, stdout=f"The prime numbers less than 10000 are: {primes}\n"
    )
    problem = brief(Attempt(code, listed, [OUTPUT]))
    assert (
        "states 1230 numbers" in problem
    )  # and 10000 and "state only the values asked" in problem
    said = "Count: 1229, estimate: 1085.74, count divided by estimate: 1.132\n"
    assert brief(Attempt(code, ExecutionResult(exit_code=0, stdout=said), [OUTPUT])) == ""
    as_json = json.dumps({OUTPUT: {"count": 1229, "primes": primes[:30]}})
    nested = ExecutionResult(exit_code=0, stdout="", files={"outputs.json": as_json.encode()})
    assert "states 31 numbers" in brief(Attempt(code, nested, [OUTPUT]))
    assert brief in checks_for(goal_check_task(["limit"]), "Count the primes below 10000.")
    answer = TaskSpec(id="a", role="coder", description="a", outputs=["answer"])
    assert brief not in checks_for(answer, QUICKSTART)
