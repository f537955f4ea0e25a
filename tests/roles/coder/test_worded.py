"""A worked answer from a reading that words a clause of the report its own way is answered
in the report's sentence; a figure, an answer from no reading, or a clause the report does
not hold stays as it was."""

from __future__ import annotations

from bus.payloads import TaskAssignment, TaskSpec
from roles.coder.quotation import worded
from roles.coder.votes import Solved

DOCS = {
    "table.md": "| | 2019 |\n|---|---|\n| Revenue | 1,234 |\n",
    "paragraphs.md": "Costs fell. Revenue grew because of strong demand in Asia.\n",
}
SENTENCE = "Revenue grew because of strong demand in Asia."


def assignment(inputs: list[str]) -> TaskAssignment:
    task = TaskSpec(id="solve", role="coder", description="d", inputs=inputs, outputs=["answer"])
    return TaskAssignment(task=task, goal="Why did revenue grow?")


def answer(text: str, view: str = "prose") -> Solved:
    return Solved({"answer": text}, {}, "", 1, view=view)  # type: ignore[arg-type]


def test_a_clause_worded_its_own_way_is_answered_in_the_reports_sentence() -> None:
    said = worded(answer("demand in Asia was strong"), assignment(["evidence"]), DOCS)
    assert said.outputs == {"answer": SENTENCE} and said.view == "prose"


def test_a_figure_no_reading_or_a_clause_the_report_lacks_stays_as_it_was() -> None:
    reading = assignment(["evidence"])
    for kept in (
        answer("$1,234 thousand"),
        answer("demand in Europe was weak this year"),
        answer("demand in Asia was strong", view="program"),
    ):
        assert worded(kept, reading, DOCS) is kept
    alone = answer("demand in Asia was strong")
    assert worded(alone, assignment([]), DOCS) is alone
