"""A question that asks for a clause of a report's text (a reason, what an item includes,
how it is measured) is told from one that asks for a value, a year or a table's items, by
its words alone."""

from __future__ import annotations

import pytest

from roles.reports.questions import asks_for_text


@pytest.mark.parametrize(
    "question",
    [
        "What was the reason for the increase in Selling and Marketing expenses?",
        "Why did the working capital decrease in fiscal 2019?",
        "What do the audit fees comprise of?",
        "What is the revolving credit facility used for?",
        "How were the foreign tax credit carryforwards calculated?",
        "When does the company grant NQs?",
        "What caused the decline in gross margin?",
        "What is the discount rate based on?",
        "What are strategic alternative evaluation costs primarily related to?",
        "What does Vessel Calendar Days refer to?",
        "What does the table show?",
    ],
)
def test_a_question_asking_why_how_or_what_an_item_holds_asks_for_text(question: str) -> None:
    assert asks_for_text(question)


@pytest.mark.parametrize(
    "question",
    [
        "What was the revenue in 2019?",
        "How much was the increase in revenue due to acquisitions?",
        "In which years was operating income calculated?",
        "What financial items does free cash flow consist of?",
        "What is the percentage change in revenue caused by the new contracts?",
        "How is the change in cash determined?",
        "What were the capital expenditures for Bell Media in 2018 and 2019?",
        "What is the total of the items the table shows?",
    ],
)
def test_a_question_asking_for_a_value_a_year_or_items_does_not(question: str) -> None:
    assert not asks_for_text(question)
