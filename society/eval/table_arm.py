"""The ``table`` arm: a report's tables read by code alone, no model — the society's table
view (`roles.reports.cells.from_table`) as an answer of its own, so that an eval shows what
of a score is code's and what the model's and its team's.

It answers the figures, the arithmetic and the years a question's words ask of the case's
tables; ``succeeded`` when the question says no word the tables do not (then the figures
may answer another question: ``unverified``, `roles.reports.cells.doubted`), ``failed``
when code finds nothing to read or work. How it was found is in ``worked.txt``.
"""

from __future__ import annotations

import time

from roles.reports.cells import doubted, from_table
from roles.reports.sentences import question_of
from society.eval.context import Answered, CaseContext
from society.eval.graders import Submission
from society.eval.suite import Case

__all__ = ["table"]

NOTHING = "code finds no figure, arithmetic or year the question's words ask of the tables"


async def table(case: Case, cx: CaseContext) -> Answered:
    """The question's figures or arithmetic, read from the case's tables by code."""
    started = time.monotonic()
    folder = cx.folder(case.id)
    documents = {
        d: (cx.suite.base_dir / d).read_text(encoding="utf-8", errors="replace")
        for d in case.documents
    }
    question = question_of(case.goal)
    found = from_table(question, documents) if documents else None
    if found is None:
        took = round(time.monotonic() - started, 3)
        return Answered(Submission(""), "failed", NOTHING, wall_s=took, folder=folder)
    words = doubted(question, documents, found)
    doubt = (
        f"the question says {', '.join(map(repr, words))}, which no table says: "
        "the figures may answer another question"
        if words
        else ""
    )
    (folder / "worked.txt").write_text(
        "".join(f"{line}\n" for line in (found.shown(), doubt) if line)
    )
    took = round(time.monotonic() - started, 3)
    status = "unverified" if words else "succeeded"
    return Answered(Submission(found.answer()), status, doubt, wall_s=took, folder=folder)
