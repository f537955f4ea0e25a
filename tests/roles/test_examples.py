"""The examples a docstring states, read as checks (pure parsing; the checks run in the
sandbox in tests/society/test_function_goal.py)."""

from __future__ import annotations

from roles.examples import examples_in, passed_of


def test_doctests_and_inline_forms_are_read() -> None:
    doc = '''def f(x):
    """
    >>> f(1)
    2
    >>> f(2) == 3
    f(3) ==> 4
    f(4) => 5
    f(5) returns 6
    f(6) should return 7.
    f(7)   # returns 8
    f(8) = 9
    """
'''
    assert examples_in(doc, "f") == [
        ("f(1)", "2"),
        ("f(2)", "3"),
        ("f(3)", "4"),
        ("f(4)", "5"),
        ("f(5)", "6"),
        ("f(6)", "7"),
        ("f(7)", "8"),
        ("f(8)", "9"),
    ]


def test_what_is_not_an_example_is_skipped() -> None:
    doc = '''def tri(n):
    """tri(n) = 1 + n / 2, if n is even.
    tri(n) = tri(n - 1) + tri(n - 2)
    is_ok(a) => true
    tri(3) -> the third one
    tri(3) = [1, 3, 2, 8]
    """
'''
    assert examples_in(doc, "tri") == [("tri(3)", "[1, 3, 2, 8]")]


def test_how_many_passed_is_read_from_a_failure() -> None:
    assert passed_of("f(1) returned 3, expected 2 (1 of 4 examples passed)") == 1
    assert passed_of("SyntaxError: invalid syntax") == -1
