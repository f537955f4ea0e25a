"""Views, verify, select on scripted candidates and a scripted check (no model, no sandbox):
the group most views agree on that passes the check is kept; agreement alone, or a check
that cannot fail, verifies nothing; a program and a prose answer that agree stop the drawing;
a disagreement adds views up to the budget, and the alternatives are shown; a trivial or
echoed value two drafts of one view agree on does not pass."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from roles.coder.select import PROGRAMS, VIEWS, View, select
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.verifier.checks import Judged


def cand(answer: JsonValue, code: str) -> Solved:
    return Solved({"answer": answer}, {}, f"exec-{code}", 1, code)


def prose(answer: str) -> Solved:
    return Solved({"answer": answer}, {}, "", 1, f"Step by step ... Answer: {answer}", "prose")


class Draws:
    """Candidates in order (a TaskFailed for None)."""

    def __init__(self, *cands: Solved | None) -> None:
        self.left = list(cands)
        self.views: list[View] = []

    async def __call__(self, view: View) -> Solved:
        self.views.append(view)
        c = self.left.pop(0)
        if c is None:
            raise TaskFailed("code still failing")
        return c


def positive(empty_passes: bool = False):  # type: ignore[no-untyped-def]
    """A check that fails answers stating a negative number."""
    seen: list[list[str]] = []

    async def judge(answers: list[str]) -> Judged:
        seen.append(answers)
        outcomes = [("fail", "negative") if "-" in a else ("pass", "") for a in answers]
        if empty_passes:
            return Judged(outcomes, False, "the check passes an empty answer", "exec-check")
        return Judged(outcomes, True, "", "exec-check")

    judge.seen = seen  # type: ignore[attr-defined]
    return judge


async def test_two_computations_that_agree_and_pass_stop_the_drawing() -> None:
    draws = Draws(cand("319 days", "a = 1"), cand("319", "b = 2\nc = 3"), cand("7", "never"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "319 days"} and chosen.drawn == 2
    assert [(v.kind, v.passed, v.independent) for v in chosen.verdicts] == [
        ("agreement", True, False),
        ("property", True, True),
    ]
    assert chosen.note == "" and draws.views == list(PROGRAMS[:2])


async def test_a_pair_that_repeats_one_misreading_is_not_kept_when_the_check_fails_it() -> None:
    draws = Draws(cand("-19 days", "x = 1"), cand("-19", "y = 2\nz = 3"), cand("319", "w = 4"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "319"}
    verdicts = {v.kind: v.passed for v in chosen.verdicts}
    assert verdicts == {"agreement": False, "property": True}
    assert chosen.note == "no second candidate agreed"


async def test_a_check_that_cannot_fail_leaves_agreement_unverified() -> None:
    draws = Draws(cand("12", "a = 1"), cand("12", "b = 2\nc = 3"))
    chosen = await select(draws, positive(empty_passes=True), "answer", frozenset(), 2, PROGRAMS)
    assert [v.kind for v in chosen.verdicts] == ["agreement"]
    assert "counts for nothing" in chosen.note


async def test_a_check_that_fails_every_candidate_is_set_aside() -> None:
    draws = Draws(cand("-5", "a = 1"), cand("-7", "b = 2"), cand("-5", "c = 3\nd = 4"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "-5"}
    assert {v.kind: v.passed for v in chosen.verdicts} == {"agreement": True}
    assert "likelier wrong than all of them" in chosen.note


async def test_one_program_twice_is_one_computation() -> None:
    draws = Draws(cand("5", "print(5)"), cand("5", "print(5)  # again"), None)
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert {v.kind: v.passed for v in chosen.verdicts}["agreement"] is False
    assert chosen.failures == ["code still failing"] and chosen.drawn == 3


async def test_no_candidate_that_ran_is_a_failure() -> None:
    draws = Draws(None, None)
    with pytest.raises(TaskFailed, match="code still failing"):
        await select(draws, positive(), "answer", frozenset(), 2, PROGRAMS)


async def test_a_program_and_a_prose_answer_that_agree_stop_the_drawing() -> None:
    draws = Draws(cand("25 primes", "a = 1"), prose("25"), cand("24", "never"))
    chosen = await select(draws, positive(), "answer", frozenset({100.0}), 4, VIEWS, 0.6)
    assert chosen.drawn == 2 and [v.kind for v in draws.views] == ["program", "prose"]
    assert chosen.kept.outputs == {"answer": "25 primes"}  # the program's, whole
    assert [(v.kind, v.passed, v.independent) for v in chosen.verdicts] == [
        ("views", True, True),
        ("property", True, True),
    ]
    sure = chosen.confidence
    assert sure is not None and sure.views == ["program", "prose"] and sure.score == 1.0
    assert chosen.note == ""


async def test_a_disagreement_adds_views_up_to_the_budget_and_shows_the_alternatives() -> None:
    draws = Draws(cand("25", "a = 1"), prose("24"), cand("26", "b = 2"), cand("27", "c = 3"))
    chosen = await select(draws, positive(), "answer", frozenset(), 4, VIEWS, 0.6)
    assert chosen.drawn == 4 and [v.kind for v in draws.views] == [
        "program",
        "prose",
        "program",
        "program",
    ]
    sure = chosen.confidence
    assert sure is not None and sure.score < 0.6 and sure.candidates == 4
    assert sure.alternatives == ["24 (prose)", "26 (program)", "27 (program)"]
    assert not all(v.passed for v in chosen.verdicts)
    assert "24 (prose)" in chosen.verdicts[-1].what or chosen.note


async def test_the_values_not_kept_are_given_whole_with_their_views_and_the_checks_word() -> None:
    long = "The stops are " + ", ".join(["Ashby", "Brent", "Cowley", "Dunmore"] * 8)  # > 120
    draws = Draws(cand("25", "a = 1"), prose(long), cand("-3", "b = 2"), cand("26", "c = 3"))
    chosen = await select(draws, positive(), "answer", frozenset(), 4, VIEWS, 0.6)
    sure = chosen.confidence
    assert sure is not None and chosen.kept.outputs == {"answer": "25"}
    assert [(o.value, o.views, o.check) for o in sure.others] == [
        (long, ["prose"], "passed"),
        ("-3", ["program"], "failed"),
        ("26", ["program"], "passed"),
    ]
    assert len(sure.alternatives[0]) < len(long)  # what the person reads stays short
    # with no check written, no group has the check's word
    draws = Draws(cand("25", "a = 1"), prose("24"))
    chosen = await select(draws, None, "answer", frozenset(), 2, VIEWS)
    assert chosen.confidence is not None
    assert [(o.value, o.check) for o in chosen.confidence.others] == [("24", "none")]


async def test_two_programs_against_a_prose_answer_are_too_unsure_to_pass() -> None:
    draws = Draws(cand("25", "a = 1"), prose("24"), cand("25", "b = 2\nc = 3"), None)
    chosen = await select(draws, positive(), "answer", frozenset(), 4, VIEWS, 0.6)
    assert chosen.kept.outputs == {"answer": "25"} and chosen.drawn == 3  # two agree: ahead
    failed = [v for v in chosen.verdicts if not v.passed]
    assert [v.kind for v in failed] == ["agreement"] and "below the 0.60" in failed[0].what
    assert chosen.confidence is not None and chosen.confidence.alternatives == ["24 (prose)"]


@pytest.mark.parametrize("value", ["0", "1", "There are 100 of them."])
async def test_a_trivial_or_echoed_value_two_programs_agree_on_does_not_pass(value: str) -> None:
    draws = Draws(cand(value, "a = 1"), cand(value, "b = 2\nc = 3"))
    chosen = await select(draws, positive(), "answer", frozenset({100.0}), 2, PROGRAMS)
    failed = [v for v in chosen.verdicts if not v.passed]
    assert [(v.kind, v.independent) for v in failed] == [("views", True)]
    assert "passes only when two views agree" in failed[0].what
    # the same value from a program and a prose answer passes
    draws = Draws(cand(value, "a = 1"), prose(value))
    chosen = await select(draws, positive(), "answer", frozenset({100.0}), 2, VIEWS, 0.6)
    assert all(v.passed for v in chosen.verdicts)


async def test_on_a_tie_a_computed_value_leads_one_that_repeats_the_goal() -> None:
    # three programs, three values: the last drawn only restates the goal's 10000
    draws = Draws(cand("2208", "a = 1"), cand("2079", "b = 2\nc = 3"), cand("10000", "d = 4"))
    chosen = await select(draws, positive(), "answer", frozenset({10000.0}), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "2079"}
    assert chosen.note == "no second candidate agreed"


async def test_among_programs_that_agree_with_none_the_one_asked_another_way_leads() -> None:
    # twin primes below 1000: the direct program and the independent check miscount
    draws = Draws(cand("167", "a = 1"), cand("16", "b = 2\nc = 3"), cand("35", "d = 4"))
    chosen = await select(draws, positive(), "answer", frozenset({2.0, 1000.0}), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "35"}
    assert chosen.confidence is not None and len(chosen.confidence.alternatives) == 2
    assert chosen.note == "no second candidate agreed"
    # the two it did not keep are level with it, latest drawn first: a goal check may pick one
    assert [s.kept.outputs["answer"] for s in chosen.level] == ["16", "167"]
    assert all(
        s.confidence is not None and "35 (program)" in s.confidence.alternatives
        for s in chosen.level
    )


async def test_no_candidate_is_level_with_a_group_that_is_ahead_or_one_the_check_fails() -> None:
    draws = Draws(cand("319", "a = 1"), cand("-4", "b = 2"), cand("319", "c = 3\nd = 4"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "319"} and chosen.level == []
    draws = Draws(cand("-3", "a = 1"), cand("12", "b = 2"), cand("-5", "c = 3"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, PROGRAMS)
    assert chosen.kept.outputs == {"answer": "12"} and chosen.level == []


async def test_a_worked_answer_drawn_first_still_leads_a_program_that_agrees_with_none() -> None:
    draws = Draws(prose("41"), cand("42", "a = 1"))
    views = (View("prose"), View("program"))
    chosen = await select(draws, positive(), "answer", frozenset(), 2, views)
    assert chosen.kept.outputs == {"answer": "41"}


def said(text: str, view: str) -> Solved:
    """A candidate drawn with no call: the researcher's quotation or the report's sentence."""
    return Solved({"answer": text}, {}, "", 0, view=view)  # type: ignore[arg-type]


READING = (View("prose"), View("quotation"), View("sentence"), View("prose", "again"))
REASON = "The increase was mainly driven by strong demand in Asia and new cloud services."


TEXT = (View("sentence"), View("prose"), View("quotation"), View("prose", "again"))
"""A reading's views when the goal asks for a clause of the report's text."""


async def test_a_clause_that_stands_in_the_reports_sentence_is_answered_by_the_sentence() -> None:
    clause = "strong demand in Asia and the new cloud services"
    draws = Draws(prose(clause), said("$1,234", "quotation"), said(REASON, "sentence"))
    chosen = await select(draws, None, "answer", frozenset(), 1, READING, 0.6)
    assert [v.kind for v in draws.views] == ["prose", "quotation", "sentence"]
    assert chosen.kept.outputs == {"answer": REASON} and chosen.kept.view == "sentence"
    # the goal does not ask for text: the sentence settles the words and is no second view
    sure = chosen.confidence
    assert sure is not None and sure.views == ["prose"] and sure.score < 0.6
    assert ("agreement", False) in [(v.kind, v.passed) for v in chosen.verdicts]


async def test_asked_for_text_the_sentence_and_a_worked_answer_standing_in_it_stop_at_one_call() -> (
    None
):
    clause = "strong demand in Asia and the new cloud services"
    draws = Draws(said(REASON, "sentence"), prose(clause), said("$1,234", "quotation"))
    chosen = await select(draws, None, "answer", frozenset(), 2, TEXT, 0.6, text=True)
    assert [v.kind for v in draws.views] == ["sentence", "prose"]  # one call, then stop
    assert chosen.kept.outputs == {"answer": REASON} and chosen.kept.view == "sentence"
    assert [(v.kind, v.passed) for v in chosen.verdicts] == [("views", True)]
    assert "the report's sentence the goal matches best" in chosen.verdicts[0].what
    sure = chosen.confidence
    assert sure is not None and sure.views == ["sentence", "prose"] and sure.score >= 0.6


async def test_asked_for_text_a_lone_sentence_leads_worked_answers_that_word_it_otherwise() -> None:
    draws = Draws(
        said(REASON, "sentence"),
        prose("a 17% increase"),
        said("$1,234", "quotation"),
        prose("higher marketing spending"),
    )
    chosen = await select(draws, positive(), "answer", frozenset(), 2, TEXT, 0.6, text=True)
    assert chosen.drawn == 4 and chosen.kept.outputs == {"answer": REASON}
    sure = chosen.confidence
    assert sure is not None and sure.views == ["sentence"] and sure.score < 0.6
    assert ("agreement", False) in [(v.kind, v.passed) for v in chosen.verdicts]
    assert [a.split(" (")[0] for a in sure.alternatives] == [
        "a 17% increase",
        "$1,234",
        "higher marketing spending",
    ]
    # not asked for text, the same sentence alone is no answer
    draws = Draws(said(REASON, "sentence"), prose("a 17% increase"))
    chosen = await select(draws, None, "answer", frozenset(), 1, TEXT[:2], 0.6)
    assert chosen.kept.outputs == {"answer": "a 17% increase"}


async def test_a_lone_figure_does_not_agree_with_a_sentence_that_holds_it() -> None:
    costs = "Selling costs fell by $5.2 million, and revenue rose by $4.0 million."
    draws = Draws(
        prose("$5.2 million"),
        said("$4.0 million", "quotation"),
        said(costs, "sentence"),
        prose("$4.0 million"),
    )
    chosen = await select(draws, None, "answer", frozenset(), 2, READING, 0.6)
    assert chosen.drawn == 4  # the sentence agreed with neither figure
    assert chosen.kept.outputs == {"answer": "$4.0 million"}
    assert chosen.confidence is not None and chosen.confidence.views == ["quotation", "prose"]


async def test_views_drawn_with_no_call_do_not_count_against_the_candidates_or_the_vote() -> None:
    draws = Draws(prose("41 apples"), said("42", "quotation"), said(REASON, "sentence"))
    chosen = await select(draws, None, "answer", frozenset(), 1, READING)
    assert [v.kind for v in draws.views] == ["prose", "quotation", "sentence"]
    assert chosen.drawn == 3 and chosen.kept.outputs == {"answer": "41 apples"}
    # a sentence nothing stands in is no answer: not an alternative, and no share of the vote
    assert chosen.confidence is not None and chosen.confidence.alternatives == ["42 (quotation)"]


async def test_a_lone_quotation_a_wrong_check_passes_is_not_kept_over_worked_answers() -> None:
    async def a_figure(answers: list[str]) -> Judged:  # the verifier misread: "a number"
        outcomes = [("pass", "") if "million" in a else ("fail", "no figure") for a in answers]
        return Judged(outcomes, True, "", "exec-check")

    views = (View("prose"), View("quotation"), View("prose", "again"))
    draws = Draws(prose("higher in 2019"), said("73.2 million", "quotation"), prose("2019"))
    chosen = await select(draws, a_figure, "answer", frozenset(), 2, views, 0.6)
    assert chosen.kept.outputs == {"answer": "higher in 2019"}
    assert ("property", False) in [(v.kind, v.passed) for v in chosen.verdicts]
    assert chosen.confidence is not None
    assert chosen.confidence.alternatives == ["73.2 million (quotation)"]
    # the quotation alone, with no worked answer, still answers
    draws = Draws(None, said("73.2 million", "quotation"), None)
    chosen = await select(draws, a_figure, "answer", frozenset(), 2, views, 0.6)
    assert chosen.kept.outputs == {"answer": "73.2 million"}


COMPUTED = (View("table"), View("prose"), View("program"), View("sentence"), View("prose", "again"))
"""A reading's views when code can work the arithmetic the goal asks of the table."""


async def test_the_tables_arithmetic_and_a_worked_answer_that_agree_stop_at_one_call() -> None:
    draws = Draws(said("23.40%", "table"), prose("23.4%"), cand("19.0%", "never drawn"))
    chosen = await select(draws, positive(), "answer", frozenset(), 3, COMPUTED, 0.6)
    assert [v.kind for v in draws.views] == ["table", "prose"]
    assert chosen.kept.view == "table" and chosen.kept.outputs == {"answer": "23.40%"}
    assert [(v.kind, v.passed) for v in chosen.verdicts] == [("views", True), ("property", True)]
    assert "worked by code" in chosen.verdicts[0].what
    sure = chosen.confidence
    assert sure is not None and sure.views == ["table", "prose"] and sure.score >= 0.6


async def test_the_tables_arithmetic_alone_answers_and_a_disagreement_draws_on() -> None:
    draws = Draws(
        said("23.40%", "table"),
        prose("19%"),
        cand("18.9%", "a = 1"),
        said("Revenue grew 23%.", "sentence"),
        prose("17%"),
    )
    chosen = await select(draws, None, "answer", frozenset(), 3, COMPUTED, 0.6)
    assert chosen.drawn == 3  # a program agreed with the worked answer: two views, ahead
    assert chosen.kept.outputs == {"answer": "18.9%"}
    assert chosen.confidence is not None
    assert chosen.confidence.alternatives == ["23.40% (table)"]
    # agreeing with none, the table's arithmetic (drawn first) leads, unverified
    draws = Draws(said("23.40%", "table"), prose("19%"), cand("7%", "b = 2"))
    chosen = await select(draws, None, "answer", frozenset(), 2, COMPUTED[:3], 0.6)
    assert chosen.kept.outputs == {"answer": "23.40%"} and chosen.kept.view == "table"
    assert ("agreement", False) in [(v.kind, v.passed) for v in chosen.verdicts]
    # worked by code, alone it is surer than a lone worked answer, and short of two views
    sure = chosen.confidence
    assert sure is not None and 0.25 <= sure.score < 0.6
    draws = Draws(prose("19%"), cand("7%", "c = 3"))
    alone = await select(draws, None, "answer", frozenset(), 2, COMPUTED[1:3], 0.6)
    assert alone.confidence is not None and alone.confidence.score < 0.25


async def test_the_tables_arithmetic_leads_two_drafts_of_one_view_that_agree_without_it() -> None:
    views = (View("table"), View("prose"), View("quotation"), View("prose", "again"))
    draws = Draws(
        said("88.06%", "table"), prose("87.4%"), said("$126", "quotation"), prose("87.4%")
    )
    chosen = await select(draws, positive(), "answer", frozenset(), 2, views, 0.6)
    assert chosen.drawn == 4 and chosen.kept.outputs == {"answer": "88.06%"}
    sure = chosen.confidence
    assert sure is not None and sure.views == ["table"] and sure.score < 0.6  # not verified
    assert "87.4% (prose)" in sure.alternatives
    # a worked answer and a program that agree (two views) still lead it
    draws = Draws(said("88.06%", "table"), prose("87.4%"), cand("87.4%", "a = 1"))
    chosen = await select(draws, None, "answer", frozenset(), 2, COMPUTED, 0.6)
    assert chosen.kept.outputs == {"answer": "87.4%"} and chosen.kept.view == "program"


def doubted(answer: str) -> Solved:
    """The table's figures for a goal that says words no table says."""
    doubt = "the goal says 'prozone', which no table of the report says"
    return Solved({"answer": answer}, {}, "", 0, "read from 'At 31 December'", "table", doubt=doubt)


async def test_a_table_reading_in_doubt_answers_but_its_agreement_verifies_nothing() -> None:
    views = (View("table"), View("prose"), View("quotation"), View("prose", "again"))
    # agreeing with a worked answer it does not stop the drawing, and nothing else agrees
    draws = Draws(doubted("53.7"), prose("53.7"), said("INR19", "quotation"), prose("INR19.5"))
    chosen = await select(draws, None, "answer", frozenset(), 2, views, 0.6)
    assert chosen.drawn == 4 and chosen.kept.outputs == {"answer": "53.7"}
    sure = chosen.confidence
    assert sure is not None and sure.views == ["prose"] and sure.score < 0.6
    assert (chosen.verdicts[0].kind, chosen.verdicts[0].passed) == ("agreement", False)
    assert "prozone" in chosen.verdicts[0].what
    # the same values, no doubt: two views, stopped at one call, verified
    draws = Draws(said("53.7", "table"), prose("53.7"), said("INR19", "quotation"))
    chosen = await select(draws, None, "answer", frozenset(), 2, views, 0.6)
    assert chosen.drawn == 2 and chosen.confidence is not None
    assert chosen.confidence.score >= 0.6
    # a view that counts agreeing with it verifies, and names only the views that count
    draws = Draws(doubted("53.7"), prose("53.7"), said("53.7", "quotation"))
    chosen = await select(draws, None, "answer", frozenset(), 2, views, 0.6)
    assert chosen.drawn == 3 and chosen.confidence is not None
    assert chosen.confidence.views == ["prose", "quotation"] and chosen.confidence.score >= 0.6
    assert chosen.verdicts[0].passed and "worked by code" not in chosen.verdicts[0].what
    # alone, it still answers over a lone worked answer (ranked as before), unverified
    draws = Draws(doubted("53.7"), prose("12"), None, None)
    chosen = await select(draws, None, "answer", frozenset(), 2, views, 0.6)
    assert chosen.kept.outputs == {"answer": "53.7"} and chosen.confidence is not None
    assert chosen.confidence.score < 0.6


async def test_the_same_program_twice_is_named_as_such_where_no_other_agreed() -> None:
    code = "import datetime\nw, y = 53, 2026\nprint(w, y)"
    draws = Draws(cand("53 and 2026", code), cand("53 and 2026", "# again\n" + code))
    chosen = await select(draws, positive(), "answer", frozenset(), 2, PROGRAMS)
    (agreement,) = [v for v in chosen.verdicts if v.kind == "agreement"]
    assert not agreement.passed
    assert agreement.what.endswith("the one that did is the same program again")
    alone = await select(
        Draws(cand("53", code), None), positive(), "answer", frozenset(), 2, PROGRAMS
    )
    (lone,) = [v for v in alone.verdicts if v.kind == "agreement"]
    assert lone.what == "no other candidate gave these values"


async def test_a_quotation_listing_more_items_than_asked_answers_unverified() -> None:
    # TAT-QA dev: "What were the total definite-lived intangible assets?" (gold 492); the
    # worked answer agreed with one item of the quotation, and the check passed the list
    views = (View("prose"), View("quotation"), View("prose", "again"))
    listed = "$492 million; 4.2 years"
    draws = Draws(prose("$492 million"), said(listed, "quotation"), None)
    chosen = await select(draws, positive(), "answer", frozenset(), 1, views, asked=1)
    assert chosen.kept.outputs == {"answer": listed}
    failed = [v for v in chosen.verdicts if not v.passed]
    assert [(v.kind, v.independent) for v in failed] == [("property", True)]
    assert "lists 2 items where the goal asks for 1" in failed[0].what
    assert chosen.note == failed[0].what
    # a program's sentence may part its values with semicolons: only a quotation is judged
    sentence = "1229 primes below 10000; x / ln x gives 1085.7; ratio 1.132"
    draws = Draws(cand(sentence, "a = 1"), prose(sentence))
    chosen = await select(draws, positive(), "answer", frozenset(), 2, READING, asked=2)
    assert chosen.kept.view == "program" and all(v.passed for v in chosen.verdicts)
    # as many items as asked, or no statement of how many, verifies as before
    for asked in (2, 0):
        draws = Draws(prose("$492 million"), said(listed, "quotation"), None)
        chosen = await select(draws, positive(), "answer", frozenset(), 1, views, asked=asked)
        assert all(v.passed for v in chosen.verdicts) and chosen.note == ""
