"""The examples a function's docstring states (a HumanEval prompt, a goal whose answer is
a function), as checks a program can run: the coder's check of a function it wrote, and
the eval's ``loop`` baseline's (never the grader's hidden tests).

Forms read: a doctest (``>>> f(x)`` and the value on the next line, or ``>>> f(x) == y``
with none), and ``f(x) == y``,
``f(x) ➞ y``, ``f(x) => y``, ``f(x) ==> y``, ``f(x) -> y``, ``f(x) = y``, ``f(x) returns y``,
``f(x) should return y`` (also after ``#``) on one line. An example whose call or value is
not a valid Python expression (``f(a) => False`` with a bare word ``a``, prose) is skipped,
never counted against the code.
"""

from __future__ import annotations

import ast
import builtins
import re

__all__ = ["Example", "check_program", "examples_in", "passed_of", "usable_example"]

Example = tuple[str, str]
"""(call, expected value), both Python expressions."""

_ARROW = re.compile(
    r"(?P<call>\b[A-Za-z_]\w*\(.*\))\s*(?:#\s*)?"
    r"(?:==>|==|➞|=>|->|should\s+return|returns|=)\s*(?P<want>.+?)\s*\.?$"
)
_PASSED = re.compile(r"\((\d+) of (\d+) examples passed\)\s*$")


def passed_of(message: str) -> int:
    """How many examples passed, from a failed check's last line (-1: none ran)."""
    m = _PASSED.search(message)
    return int(m.group(1)) if m else -1


def _expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return bool(text.strip())


def _bare_names(call: str, entry: str) -> bool:
    """Whether ``call`` names a variable other than the function (``f(a)``): skip it."""
    tree = ast.parse(call, mode="eval")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return bool(names - {entry, *dir(builtins)})


def examples_in(prompt: str, entry: str) -> list[Example]:
    """The usable examples of the function ``entry`` in ``prompt``, in order."""
    lines = prompt.splitlines()
    found: list[Example] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        call = want = ""
        if stripped.startswith(">>>"):
            call = stripped[3:].strip()
            following = [ln.strip() for ln in lines[i + 1 : i + 2]]
            want = following[0] if following and not following[0].startswith(">>>") else ""
            m = _ARROW.search(call)
            if m is not None:  # ``>>> f(x) == y`` states its value in line
                call, want = m.group("call"), m.group("want")
        else:
            m = _ARROW.search(stripped)
            if m is not None:
                call, want = m.group("call"), m.group("want")
        if call and want and usable_example(call, want, entry):
            found.append((call, want))
    return list(dict.fromkeys(found))


def usable_example(call: str, want: str, entry: str) -> bool:
    """Whether (``call``, ``want``) can be run as an example of ``entry``: both are Python
    expressions, the call calls it, and neither names a variable it does not define."""
    if f"{entry}(" not in call or not (_expression(call) and _expression(want)):
        return False
    # a value that calls the function defines it (``tri(n) = tri(n-1)...``)
    return not (_bare_names(call, entry) or _bare_names(want, entry) or f"{entry}(" in want)


CHECK = """\
import math
PROMPT = {prompt!r}
CODE = {code!r}
ENTRY = {entry!r}
EXAMPLES = {examples!r}
ns = {{}}
exec(CODE if ("def " + ENTRY) in CODE else PROMPT + CODE, ns)
failed = []
for call, expected in EXAMPLES:
    want = eval(expected, dict(ns))
    try:
        got = eval(call, ns)
    except Exception as exc:
        failed.append(f"{{call}} raised {{type(exc).__name__}}: {{exc}} (expected {{expected}})")
        continue
    same = got == want or (
        isinstance(got, float) and isinstance(want, (int, float)) and math.isclose(got, want, rel_tol=1e-6)
    )
    if not same:
        failed.append(f"{{call}} returned {{got!r}}, expected {{expected}}")
if failed:
    raise SystemExit(f"{{failed[0]}} ({{len(EXAMPLES) - len(failed)}} of {{len(EXAMPLES)}} examples passed)")
print(f"passed {{len(EXAMPLES)}} examples")
"""


def check_program(prompt: str, code: str, entry: str, examples: list[Example]) -> str:
    """A program that defines the function from ``code`` and runs ``examples`` against it;
    it runs them all and exits non-zero naming the first failure and how many passed
    (``(k of n examples passed)``, see `passed_of`)."""
    return CHECK.format(prompt=prompt, code=code, entry=entry, examples=examples)
