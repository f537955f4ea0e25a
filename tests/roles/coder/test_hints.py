"""The coder's feedback on a program that ran without giving its outputs (pure logic)."""

from __future__ import annotations

from roles.coder.hints import code_hints, describe_run
from sandbox.result import ExecutionResult

MAIN_NEVER_CALLED = """
import json

def main():
    data = json.load(open("inputs.json"))
    json.dump({"answer": data["n"] * 2}, open("outputs.json", "w"))
"""


def test_main_defined_and_never_called_is_named() -> None:
    ran = ExecutionResult(exit_code=0)
    hints = code_hints(MAIN_NEVER_CALLED, ran, ["answer"])
    assert hints == [
        "main() is defined but never called, so nothing ran: call it at the end of the "
        "program (or write the code at module level)."
    ]
    said = describe_run(ran, ["answer"])
    assert "exited with code 0" in said and "stdout: (empty)" in said
    assert "outputs.json holding the keys ['answer']" in said and "It wrote no files." in said


def test_a_called_main_gets_no_such_hint() -> None:
    ran = ExecutionResult(exit_code=0, files={"outputs.json": b"{}"})
    assert code_hints(MAIN_NEVER_CALLED + "\nmain()\n", ran, ["answer"]) == []


def test_input_argv_unloaded_inputs_and_the_wrong_file_are_named() -> None:
    crashed = ExecutionResult(exit_code=1, stderr="EOFError: EOF when reading a line")
    assert "input() gets no input here" in code_hints("n = int(input())\n", crashed, ["x"])[0]
    argv = code_hints("import sys\nprint(sys.argv[1])\n", crashed, ["x"])
    assert any("no command-line arguments" in h for h in argv)
    unloaded = ExecutionResult(exit_code=1, stderr="NameError: name 'inputs' is not defined")
    assert any("Load the inputs" in h for h in code_hints("print(inputs['a'])\n", unloaded, ["a"]))
    wrong = ExecutionResult(exit_code=0, files={"output.json": b"{}"})
    hints = code_hints("import json\njson.dump({}, open('output.json', 'w'))\n", wrong, ["a"])
    assert hints == [
        "It wrote output.json but the outputs must go to outputs.json (one JSON object with "
        "the keys ['a'])."
    ]


def test_code_that_does_not_parse_gets_no_structural_hints() -> None:
    assert code_hints("def f(:\n", ExecutionResult(exit_code=1), ["a"]) == []


def test_a_function_called_without_its_import_is_named_with_its_module() -> None:
    code = "gcd = 462 // (1071 // gcd(462, 1071))\nprint(gcd)\n"
    stderr = "Traceback...\nNameError: name 'gcd' is not defined\n"
    hint = code_hints(code, ExecutionResult(exit_code=1, stderr=stderr), ["answer"])[0]
    assert "it is math.gcd; write `from math import gcd`" in hint
    assert "Do not also name a variable gcd" in hint
    stderr = "NameError: name 'Counter' is not defined"
    (hint,) = code_hints("print(Counter('aab'))", ExecutionResult(exit_code=1, stderr=stderr), [])
    assert "`from collections import Counter`" in hint and "variable" not in hint


def test_a_function_hidden_by_a_variable_of_its_name_is_named() -> None:
    code = "from math import gcd\ngcd = 462 // (1071 // gcd(462, 1071))\nlcm = 462 * 1071 // gcd(462, 1071)\n"
    stderr = "TypeError: 'int' object is not callable"
    hints = code_hints(code, ExecutionResult(exit_code=1, stderr=stderr), ["answer"])
    assert any("gcd is given a value (`gcd = ...`) and also called as gcd(...)" in h for h in hints)


def test_a_name_its_module_does_not_have_is_not_imported_again() -> None:
    failed = ExecutionResult(
        exit_code=1,
        stderr="ImportError: cannot import name 'li' from 'scipy.special' (/opt/site/x.py)\n",
    )
    hint = code_hints("from scipy.special import li\nprint(li(10000))\n", failed, ["e"])[0]
    assert hint.startswith("scipy.special has no li here") and "do not import it again" in hint
    other = ExecutionResult(exit_code=1, stderr="ModuleNotFoundError: No module named 'sympyy'\n")
    assert not any("has no" in h for h in code_hints("import sympyy\n", other, ["e"]))
