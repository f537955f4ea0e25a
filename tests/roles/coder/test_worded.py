"""A worked answer from a reading that words a clause of the report its own way is answered
in the report's sentence; a figure, an answer from no reading, or a clause the report does
not hold stays as it was."""

from __future__ import annotations

from bus.payloads import TaskAssignment, TaskSpec
from roles.coder.quotation import reading_views, text_asked, worded
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


def test_a_reading_asked_for_text_draws_the_sentence_first_and_no_program() -> None:
    why = assignment(["evidence", "quoted"])
    assert [v.kind for v in reading_views(why)] == ["sentence", "prose", "prose"]
    assert text_asked(why) and not text_asked(assignment(["x"]))
    how_much = why.model_copy(update={"goal": "What was the revenue in 2019?"})
    assert not text_asked(how_much)
    assert [v.kind for v in reading_views(how_much)] == ["prose", "program", "sentence", "prose"]
