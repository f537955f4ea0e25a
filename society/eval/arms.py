"""The arms of an eval, by name: every way of answering a case is one callable of one
shape, ``(case, CaseContext) -> Answered``, and the runner knows no arm by name.

A new arm is one module with one such function and one `register` call (or a line in
`_builtin`); the runner answers, grades and records it like the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from society.eval.context import Answered, CaseContext
from society.eval.suite import Case

__all__ = ["MODEL_FREE", "Arm", "arm_named", "arm_names", "register"]

Arm = Callable[[Case, CaseContext], Awaitable[Answered]]
"""Answers one case; whatever it raises is recorded as that case's ``crashed`` answer."""

_REGISTERED: dict[str, Arm] = {}

MODEL_FREE = frozenset({"table"})
"""The built-in arms that call no model: an eval of them alone needs no model server."""


def _builtin() -> dict[str, Arm]:
    from society.eval.baselines import direct, program
    from society.eval.loop import loop
    from society.eval.society_arm import society
    from society.eval.table_arm import table
    from society.eval.vote import vote

    return {
        "society": society,
        "direct": direct,
        "program": program,
        "loop": loop,
        "vote": vote,
        "table": table,
    }


def register(name: str, arm: Arm) -> None:
    """Make ``arm`` answerable as ``name`` (a built-in's name is refused)."""
    if name in _builtin():
        msg = f"{name!r} is a built-in arm"
        raise ValueError(msg)
    _REGISTERED[name] = arm


def arm_names() -> list[str]:
    """Every arm that can be run, built-ins first."""
    return [*_builtin(), *_REGISTERED]


def arm_named(name: str) -> Arm:
    """The arm called ``name`` (KeyError naming the known ones when there is none)."""
    arms = {**_builtin(), **_REGISTERED}
    if name not in arms:
        msg = f"no arm {name!r} (arms: {', '.join(arms)})"
        raise KeyError(msg)
    return arms[name]
