"""The program protocol in the real sandbox: a program that uses ``inputs`` without loading
it, reads a value by its name, prints its answer, writes a date, a decimal or a numpy value,
or reads a document, runs; its errors name its own line numbers."""

from __future__ import annotations

import json
from typing import cast

import pytest
from pydantic import JsonValue

from roles.coder.checks import read_outputs
from roles.execution import CodeRunner, ExecutionResult
from roles.program import files_for, unwrapped, wrapped
from roles.structured import AnswerInvalid

pytestmark = [pytest.mark.docker, pytest.mark.timeout(120)]


async def run(
    sandbox: object,
    code: str,
    inputs: dict[str, JsonValue],
    docs: dict[str, str],
    outputs: tuple[str, ...] = (),
) -> ExecutionResult:
    code_runner = cast(CodeRunner, sandbox)
    files = files_for(inputs, docs, outputs)
    return unwrapped(await code_runner.execute(wrapped(code), files, 20))


async def test_inputs_used_without_loading_them_and_a_printed_answer(
    shared_sandbox: object,
) -> None:
    code = "print(inputs['n'] * 2, n + 1)"
    result = await run(shared_sandbox, code, {"n": 20}, {})
    assert result.ok, result.stderr
    assert read_outputs(["answer"], result) == {"answer": "40 21"}


async def test_an_answer_written_to_the_file_its_printed_line_names_is_read_from_it(
    shared_sandbox: object,
) -> None:
    code = """
with open("answer.txt", "w") as f:
    f.write(f"{n} primes, ratio {n / 1085.7:.3f}")
with open("notes.txt", "w") as f:
    f.write("scratch")
print("Answer has been written to answer.txt")
"""
    result = await run(shared_sandbox, code, {"n": 1229}, {})
    assert result.ok, result.stderr
    assert read_outputs(["answer"], result) == {"answer": "1229 primes, ratio 1.132"}
    plain = await run(shared_sandbox, "open('answer.txt', 'w').write('x')\nprint(7)", {}, {})
    assert read_outputs(["answer"], plain) == {"answer": 7}  # a line naming no file: as printed


async def test_a_printed_name_and_number_is_read_as_the_number(shared_sandbox: object) -> None:
    code = 'print(f"estimate: {limit / 9.21:.4f}")'
    result = await run(shared_sandbox, code, {"limit": 10000}, {})
    assert result.ok, result.stderr
    assert read_outputs(["estimate"], result) == {"estimate": 1085.7763}
    assert read_outputs(["ratio"], result) == {"ratio": "estimate: 1085.7763"}  # another name
    assert read_outputs(["answer"], result) == {"answer": "estimate: 1085.7763"}  # its words
    held = await run(shared_sandbox, "print({'prime_count': 1229, 'ratio': 1.13})", {}, {})
    assert read_outputs(["prime_count"], held) == {"prime_count": 1229}
    assert read_outputs(["estimate"], held) == {"estimate": "{'prime_count': 1229, 'ratio': 1.13}"}
    as_json = await run(shared_sandbox, 'print(\'{"prime_count": 1229, "ratio": 1.13}\')', {}, {})
    assert read_outputs(["prime_count"], as_json) == {"prime_count": 1229}
    assert read_outputs(["answer"], as_json) == {"answer": {"prime_count": 1229, "ratio": 1.13}}


async def test_outputs_left_in_variables_of_their_names_are_read_when_nothing_was_printed(
    shared_sandbox: object,
) -> None:
    code = 'count = 1229\nratio = count / estimate\ntext = f"ratio {ratio:.3f}"'
    names = ("count", "ratio")
    result = await run(shared_sandbox, code, {"estimate": 1085.7}, {}, names)
    assert result.ok, result.stderr
    assert read_outputs(list(names), result) == {"count": 1229, "ratio": 1229 / 1085.7}
    printed = await run(
        shared_sandbox, code + "\nprint(count + 1)", {"estimate": 1.0}, {}, ("count",)
    )
    assert read_outputs(["count"], printed) == {"count": 1230}  # what it printed comes first
    partial = await run(shared_sandbox, code, {"estimate": 1.0}, {}, ("count", "missing"))
    with pytest.raises(AnswerInvalid, match=r"wrote no outputs\.json"):
        read_outputs(["count", "missing"], partial)  # not every output is a variable
    function = await run(shared_sandbox, "def count():\n    return 3", {}, {}, ("count",))
    with pytest.raises(AnswerInvalid, match=r"wrote no outputs\.json"):
        read_outputs(["count"], function)  # a function is no value


async def test_outputs_written_to_one_other_json_file_that_holds_them_all_are_read(
    shared_sandbox: object,
) -> None:
    code = """
import json
json.dump({"prime_count": 1229, "estimate": 1085.7}, open("output.json", "w"))
json.dump({"other": 1}, open("notes.json", "w"))
"""
    result = await run(shared_sandbox, code, {"limit": 10000}, {})
    assert result.ok, result.stderr
    assert read_outputs(["prime_count"], result) == {"prime_count": 1229}
    with pytest.raises(AnswerInvalid, match=r"wrote no outputs\.json"):
        read_outputs(["ratio"], result)  # no file holds it
    twice = await run(shared_sandbox, code.replace('{"other": 1}', '{"prime_count": 7}'), {}, {})
    with pytest.raises(AnswerInvalid, match=r"wrote no outputs\.json"):
        read_outputs(["prime_count"], twice)  # two files hold it: which is meant is unclear


async def test_a_program_ending_on_a_bare_dict_has_it_written_as_its_outputs(
    shared_sandbox: object,
) -> None:
    code = '# report\n{\n    "answer": f"Count: {count}, ratio: {count / 1085.74:.3f}"\n}\n'
    result = await run(shared_sandbox, code, {"count": 1229}, {})
    assert result.ok, result.stderr
    assert read_outputs(["answer"], result) == {"answer": "Count: 1229, ratio: 1.132"}
    own = 'import json\njson.dump({"answer": 7}, open("outputs.json", "w"))\n{"answer": 8}\n'
    assert read_outputs(["answer"], await run(shared_sandbox, own, {}, {})) == {"answer": 7}
    failing = '{"answer": 1}\nraise SystemExit(f"line {2}")\n'  # the last statement is not a dict
    assert "outputs.json" not in (await run(shared_sandbox, failing, {}, {})).files


async def test_dates_decimals_and_numpy_values_are_written_as_json(shared_sandbox: object) -> None:
    code = """
import datetime, decimal, json
import numpy as np
d = datetime.date.fromisoformat(start) + datetime.timedelta(days=3)
json.dump({"day": d, "cost": decimal.Decimal("1.25"), "n": np.int64(7), "v": np.array([1, 2])},
          open("outputs.json", "w"))
"""
    result = await run(shared_sandbox, code, {"start": "2024-02-27"}, {})
    assert result.ok, result.stderr
    assert json.loads(result.files["outputs.json"]) == {
        "day": "2024-03-01",
        "cost": 1.25,
        "n": 7,
        "v": [1, 2],
    }
    assert "society_prelude.py" not in result.files


async def test_a_document_is_a_file_beside_the_program(shared_sandbox: object) -> None:
    code = "print(open('tariff.md').read().split()[-1])"
    result = await run(shared_sandbox, code, {}, {"tariff.md": "# Tariff\nrate 0.25"})
    assert result.ok, result.stderr
    assert result.stdout.strip() == "0.25"


async def test_an_error_names_the_programs_own_line(shared_sandbox: object) -> None:
    result = await run(shared_sandbox, "x = 1\ny = x / 0\n", {}, {})
    assert not result.ok
    assert 'File "main.py", line 2' in result.stderr


async def test_an_input_named_like_a_builtin_does_not_hide_it(shared_sandbox: object) -> None:
    result = await run(shared_sandbox, "print(sum([1, 2]), inputs['sum'])", {"sum": 9}, {})
    assert result.ok, result.stderr
    assert result.stdout.strip() == "3 9"
