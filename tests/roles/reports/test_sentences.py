"""A report's sentences, the one a question matches best, and whether an answer stands in
one: a clause with its numbers does; a lone figure, a clause with another number, or words
from elsewhere in the report do not."""

from __future__ import annotations

import pytest

from roles.reports.sentences import (
    best_sentence,
    question_of,
    ranked,
    sentence_for,
    sentences,
    supports,
)

TABLE = "| (in millions) | 2019 | 2018 |\n|---|---|---|\n| Revenue | 1,234 | 1,000 |\n"
TEXT = (
    "Revenue grew 23% in 2019. The increase was mainly driven by strong demand in Asia and "
    "new cloud services.\n\nSelling costs fell by $5.2 million. They fell because fewer "
    "trade shows were held."
)
DOCS = {"table.md": TABLE, "paragraphs.md": TEXT}
REASON = "The increase was mainly driven by strong demand in Asia and new cloud services."


def test_sentences_are_the_texts_not_the_tables_rows() -> None:
    assert sentences(DOCS) == [
        "Revenue grew 23% in 2019.",
        REASON,
        "Selling costs fell by $5.2 million.",
        "They fell because fewer trade shows were held.",
    ]


def test_the_sentences_ranked_for_a_question_are_those_sharing_a_word_with_it() -> None:
    found = ranked("Did revenue or selling costs grow?", DOCS)
    assert sorted(found) == ["Revenue grew 23% in 2019.", "Selling costs fell by $5.2 million."]
    assert ranked("Who audits?", DOCS) == []


def test_the_sentence_a_question_matches_best_is_found() -> None:
    assert best_sentence("What was the increase mainly driven by?", DOCS) == REASON
    assert best_sentence("Why did selling costs fall?", DOCS) == (
        "Selling costs fell by $5.2 million."
    )
    assert best_sentence("Who is the auditor?", DOCS) is None
    assert best_sentence("What drove it?", {"table.md": TABLE}) is None


def test_a_heading_is_no_sentence_to_answer_with() -> None:
    headed = {"paragraphs.md": f"Selling Costs Increase\n\n{TEXT}"}
    assert ranked("Why did selling costs increase?", headed)[0] == "Selling Costs Increase"
    found = best_sentence("Why did selling costs increase?", headed)
    assert found == "Selling costs fell by $5.2 million."


def test_a_goals_question_is_its_first_paragraph() -> None:
    goal = "\nWhat drove the increase?\n\nAnswer from the report; quote a text answer."
    assert question_of(goal) == "What drove the increase?"


@pytest.mark.parametrize(
    ("answer", "stands"),
    [
        ("strong demand in Asia and new cloud services", True),
        ("Demand in Asia was strong, and the cloud services were new", True),
        ("Selling costs fell by 5.2 million dollars", False),  # another sentence's words
        ("$5.2 million", False),  # a lone figure stands in many sentences
        ("Asia", False),
        ("cloud services", True),  # two words will do: "Sales taxes"
        ("cloud costs", False),
        ("strong demand in Asia, up 23%", False),  # 23 is not in this sentence
    ],
)
def test_an_answer_stands_in_a_sentence_only_as_a_clause_with_its_numbers(
    answer: str, stands: bool
) -> None:
    assert supports(REASON, answer) is stands


def test_a_clauses_numbers_must_be_the_sentences() -> None:
    costs = "Selling costs fell by $5.2 million."
    assert supports(costs, "selling costs fell 5.2 million")
    assert not supports(costs, "selling costs fell 5.3 million")


def test_a_clause_is_found_in_the_sentence_that_holds_most_of_its_words() -> None:
    assert sentence_for("demand in Asia was strong, and cloud services new", DOCS) == REASON
    assert sentence_for("fewer trade shows were held", DOCS) == (
        "They fell because fewer trade shows were held."
    )
    assert sentence_for("$5.2 million", DOCS) is None  # a figure is no clause
    assert sentence_for("demand in Europe was weak this year", DOCS) is None


def test_of_the_sentences_a_short_clause_stands_in_the_one_the_question_ranks_first_answers() -> (
    None
):
    docs = {"p.md": "Sales rose. Sales taxes are paid monthly. Revenue excludes sales taxes."}
    assert sentence_for("sales taxes", docs) == "Sales taxes are paid monthly."
    excluded = "What is excluded from revenue?"
    assert sentence_for("sales taxes", docs, excluded) == "Revenue excludes sales taxes."
