"""An answer's ``outputs.json`` not keyed by it is taken whole (pure logic, no sandbox): a
live 1.5B goal check wrote the right values as a list and under its own keys, and lost
three attempts to a missing key."""

from __future__ import annotations

import json

import pytest

from roles.coder.checks import read_outputs
from roles.structured import AnswerInvalid
from roles.verifier.goal_check import OUTPUT
from sandbox.result import ExecutionResult


def wrote(data: object) -> ExecutionResult:
    return ExecutionResult(0, files={"outputs.json": json.dumps(data).encode()})


def test_an_answer_laid_out_otherwise_is_all_of_outputs_json() -> None:
    listed = ["The count is 1229.", "The estimate is 1085.74; the ratio 1.1320."]
    assert read_outputs([OUTPUT], wrote(listed)) == {OUTPUT: listed}
    keyed = {"count_of_primes": 1229, "pi_estimate": 1085.74, "ratio": 1.132}
    assert read_outputs([OUTPUT], wrote(keyed)) == {OUTPUT: keyed}
    assert read_outputs(["answer"], wrote(keyed)) == {"answer": keyed}
    # keyed by it: that key's value, as before
    assert read_outputs(["answer"], wrote({"answer": 7, "x": 1})) == {"answer": 7}


def test_another_output_or_an_empty_answer_still_names_what_is_missing() -> None:
    with pytest.raises(AnswerInvalid, match=r"lacks \['prime_count'\]"):
        read_outputs(["prime_count"], wrote({"count": 1229}))  # another key: maybe another value
    with pytest.raises(AnswerInvalid, match="must hold a JSON object"):
        read_outputs(["prime_count"], wrote([1229]))
    with pytest.raises(AnswerInvalid, match="must hold a JSON object"):
        read_outputs(["answer"], wrote([]))
    with pytest.raises(AnswerInvalid, match=r"lacks \['answer'\]"):
        read_outputs(["answer"], wrote({}))
    with pytest.raises(AnswerInvalid, match=r"lacks \['answer', 'note'\]"):
        read_outputs(["answer", "note"], wrote({"count": 1}))  # several outputs: keyed
