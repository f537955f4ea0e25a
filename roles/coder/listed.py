"""A quotation that lists more items than the goal asks for: the items of an answer joined
as the researcher's quotations are (``; ``), and the verdict that keeps such a list from
passing as one verified answer. Only the quotation is judged so: a program's sentence may
part its values with semicolons, and the verifier's count of them is often short (it said 2
for the quickstart's three).

On TAT-QA dev-120 (1.5B, 90897ec) every answer that was a quotation listing more items
than the verifier said the goal asks (``values_asked``, stated from the goal before any
answer) was wrong: 6 of 6, 3 of them `succeeded` because a worked answer agreed with one
of the items."""

from __future__ import annotations

import re

from bus.verdicts import CheckVerdict

__all__ = ["items_of", "over_listed"]

_SEP = re.compile(r";\s+")


def items_of(answer: str) -> list[str]:
    """The items of an answer written as a list (parted by ``; ``); one item otherwise."""
    return [item.strip() for item in _SEP.split(answer.strip()) if re.search(r"\w", item)]


def over_listed(answer: str, asked: int, candidate: str = "") -> CheckVerdict | None:
    """A failed verdict when ``answer`` lists more items than the ``asked`` values the
    verifier stated (0: it stated none, and nothing is judged)."""
    items = items_of(answer)
    if asked < 1 or len(items) <= asked:
        return None
    return CheckVerdict(
        kind="property",
        what=(
            f"it lists {len(items)} items where the goal asks for {asked} (the verifier's "
            "statement, from the goal alone): a list is not one answer"
        ),
        candidate=candidate,
        passed=False,
        independent=True,
    )
