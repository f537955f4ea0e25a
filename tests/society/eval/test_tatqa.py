"""TAT-QA: the metric as the official tests state it (tatqa_metric_test.py,
tatqa_utils_test.py at 870accc), its reading of sentences, the suite and its draw, and
``society eval --tatqa`` building it (no model, no sandbox)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from typer.testing import CliRunner

from society.cli.evaluate import build_suite
from society.cli.main import app
from society.eval.graders import Submission, grade
from society.eval.suite import TatQA
from society.eval.tatqa import questions, table_markdown, tatqa_suite
from society.eval.tatqa_metric import (
    exact_match,
    gold_answers,
    grade_sentence,
    is_number,
    normalize_answer,
    stated_numbers,
    to_number,
)

# --- the official tests, ported (exact match; F1 is not ported) ---------------------------

_OFFICIAL: list[tuple[str, object, str, object, str, bool]] = [
    # (answer type, gold answer, gold scale, prediction, predicted scale, exact match)
    ("span", ["here is, a test"], "", "here is, a test", "", True),
    ("span", ["1234.1"], "million", "1234.1", "thousand", False),
    ("span", ["1234.1"], "million", "123", "thousand", False),
    ("span", ["12314.1"], "million", "12314.1", "million", True),
    ("multi-span", ["singapore", "china", "usa"], "", ["singapore", "china", "usa"], "", True),
    ("multi-span", ["singapore", "china", "usa"], "", ["china", "singapore", "usa"], "", True),
    ("multi-span", ["singapore", "china", "usa"], "", ["china", "singapore"], "", False),
    ("arithmetic", 123.2, "million", 123.2, "", False),
    ("arithmetic", 123.2, "million", 123200000, "", True),
    ("arithmetic", 123.2, "million", 123.2, "thousand", False),
    ("arithmetic", 123.2, "", 123.2, "", True),
    ("arithmetic", 123.22, "", 123.2, "", False),
    ("arithmetic", 123.2, "", 123.2010, "", True),
    ("count", 5, "", 5, "", True),
    ("arithmetic", 22.12, "percent", 0.2212, "", True),
    ("arithmetic", 22.12, "percent", 0.22121, "percent", False),
    ("arithmetic", 22.12, "percent", 22.1231, "", False),
    ("arithmetic", 22.12, "percent", 22.1231, "percent", True),
    ("span", [22.12], "million", "22.12", "million", True),
    ("span", [22.12], "million", "22.12", "", False),
    ("arithmetic", 22.12, "million", "test", "", False),
    ("arithmetic", 22.12, "million", ["1", "2"], "", False),
    ("span", [22.12], "percent", "-22.12", "", False),
    ("span", [22.12], "percent", "22.12%", "", True),
    ("span", [22.12], "", "22.12%", "", False),
    ("span", [22.12], "million", "$22.12", "", False),
    ("arithmetic", 22.12, "million", "$22.12", "", False),
    ("span", ["22.12"], "percent", ["-22.12"], "", False),
    ("span", ["$1.0 million"], "", ["['$1.0 million']"], "", True),
    ("span", [22.12], "", "$22.12", "", True),
    ("span", [22.12], "percent", "22.12%", "percent", True),
    ("count", 5, "", "abcd 5", "1", False),
    ("multi-span", ["$23,234", "$234.12"], "", ["234.12", "23,234"], "", True),
    ("multi-span", ["$35,120", "$24,159"], "", ["$24,159", "$35,120"], "", True),
    ("arithmetic", ["34.12"], "percent", ["0.3412"], "", True),
    ("arithmetic", ["34.12%"], "percent", ["0.3412"], "", True),  # test_one
    ("arithmetic", ["34.12%"], "", ["0.3412"], "", True),  # test_one
]


@pytest.mark.parametrize(("kind", "gold", "scale", "pred", "pred_scale", "em"), _OFFICIAL)
def test_exact_match_as_the_official_tests_state_it(
    kind: str, gold: object, scale: str, pred: object, pred_scale: str, em: bool
) -> None:
    prediction = [str(p) for p in pred] if isinstance(pred, list) else [str(pred)]
    assert exact_match(gold_answers(gold, kind), scale, prediction, pred_scale) is em


def test_number_reading_as_the_official_utils_tests_state_it() -> None:
    assert to_number("2.3 million") == 2300000
    assert to_number("-2.3 thousand") == -2300
    assert to_number("205 billion") == 205000000000
    assert to_number("-1,210 million") == -1210000000
    assert normalize_answer("-134.12") == "-134.12"
    assert normalize_answer("134.12") == "134.12"
    assert normalize_answer("(134.12)") == "-134.12"
    assert normalize_answer("18.3%") == "0.183"
    assert is_number("$124")
    assert is_number("1 million") and not is_number("2 years")
    # the two fixes: a thousands separator inside parentheses, a percent after them
    assert to_number("$(20,597)") == -20597
    assert to_number("(66)%") == -0.66
    assert to_number("$(9.8) million") == -9800000


# --- sentences ---------------------------------------------------------------------------


def passes(text: str, gold: object, kind: str, scale: str = "") -> bool:
    return grade_sentence(text, gold_answers(gold, kind), kind, scale)[0]


def test_the_right_number_with_the_right_scale_passes() -> None:
    assert passes("The revenue was $1,234 thousand.", 1234, "arithmetic", "thousand")
    assert passes("Revenue: 1,234 (in thousands)", 1234, "arithmetic", "thousand")
    assert passes("It was $1.2m", 1.2, "arithmetic", "million")
    assert not passes("The revenue was $1,234.", 1234, "arithmetic", "thousand")
    assert not passes("The revenue was $1,234 million.", 1234, "arithmetic", "thousand")
    assert not passes("The revenue was $1,235 thousand.", 1234, "arithmetic", "thousand")


def test_the_same_value_at_another_scale_passes_as_the_official_metric_reads_a_scale_word() -> None:
    # decided: "1.234 million" is 1234 thousand (the official to_number folds the word in)
    assert passes("Revenue was 1.234 million.", 1234, "arithmetic", "thousand")
    assert passes("Revenue was 12,300 thousand.", 12.3, "arithmetic", "million")
    assert not passes("Revenue was 1.2 million.", 1234, "arithmetic", "thousand")


def test_parentheses_and_minus_signs_are_negative_but_ranges_and_subtractions_are_not() -> None:
    assert passes("The change was (5.2).", -5.2, "arithmetic")
    assert passes("The change was −5.2.", -5.2, "arithmetic")
    assert passes("It was $(1,234) thousand", -1234, "arithmetic", "thousand")
    assert not passes("The change was 5.2.", -5.2, "arithmetic")
    assert [s.value for s in stated_numbers("from 2018-2019: 44.1 - 56.7")] == [
        2018,
        2019,
        44.1,
        56.7,
    ]


def test_percent_by_sign_word_or_fraction_and_arithmetic_rounded_to_two_decimals() -> None:
    assert passes("It fell by -22.22%.", -22.22, "arithmetic", "percent")
    assert passes("It fell by -22.22 percent.", -22.22, "arithmetic", "percent")
    assert passes("The ratio is -0.2222", -22.22, "arithmetic", "percent")  # the fraction
    assert passes("a change of -22.2222%", -22.22, "arithmetic", "percent")
    assert not passes("It fell by -22.22.", -22.22, "arithmetic", "percent")
    assert not passes("It fell by 22.22%.", -22.22, "arithmetic", "percent")
    assert passes("about 123.201", 123.2, "arithmetic")
    assert not passes("about 123.2", 123.22, "arithmetic")


def test_spans_are_found_as_the_metric_normalises_them_and_multi_spans_as_sets() -> None:
    gold = ["singapore", "china", "usa"]
    assert passes("They are the USA, Singapore and China.", gold, "multi-span")
    assert passes("China; USA; Singapore", gold, "multi-span")
    assert not passes("They are the USA and China.", gold, "multi-span")
    assert passes("The items were $234.12 and $23,234.", ["$23,234", "$234.12"], "multi-span")
    assert passes("Here is a test!", ["here is, a test"], "span")
    assert passes("It is the contract’s fee.", ["the contract's fee"], "span")
    assert not passes("Here is the best test.", ["here is, a test"], "span")
    assert passes("Total sales were $1,496.5 million.", ["$1,496.5"], "span", "million")
    assert passes("The largest was in 2019.", ["2019"], "span")


def test_an_answer_written_as_a_list_is_graded_as_a_set_of_items() -> None:
    # each near-miss once passed: every gold value was among the items
    assert not passes("$492 million; 4.2 years", ["492"], "span", "million")
    assert passes("$492 million", ["492"], "span", "million")
    # "In which year was Distribution the largest?" (gold 2019)
    assert not passes("$136.4 million in 2019; $131.7 million in 2018", ["2019"], "span")
    gold = ["$0.9 million", "$0.6 million"]
    assert not passes("$0.3 million; $0.9 million; $0.6 million", gold, "multi-span")
    assert passes("$0.9 million; $0.6 million", gold, "multi-span")
    assert passes("$0.6 million; $0.9 million", gold, "multi-span")
    assert not passes("China; USA; Japan", ["china", "usa"], "multi-span")
    # prose around one answer is context, and a gold span's own semicolon keeps it whole
    assert passes("Revenue was $5.2 million, up from $4.1 million.", ["5.2"], "span", "million")
    assert passes("a fee; and a tax", ["a fee; and a tax"], "span")
    why = grade_sentence("$492 million; 4.2 years", ["492"], "span", "million")[1]
    assert "4.2 years" in why


def test_a_count_may_be_a_word_and_a_list_or_a_copy_is_no_answer() -> None:
    assert passes("There are three contract types.", "3", "count")
    assert passes("There are 3.", "3", "count")
    assert not passes("There are four.", "3", "count")
    listing = ", ".join(str(n) for n in range(1, 20))
    assert not passes(listing, 7, "arithmetic")
    copy = "the company reported revenue " * 60 + "here is a test"
    assert not passes(copy, ["here is, a test"], "span")


def test_every_gold_answer_stated_plainly_passes_and_ten_times_it_fails() -> None:
    for split in ("dev", "test"):
        for _, q in questions(split):
            kind, scale = q["answer_type"], q["scale"]
            gold = gold_answers(q["answer"], kind)
            said = "The answer is " + "; ".join(f"{a} {scale}".strip() for a in gold) + "."
            assert grade_sentence(said, gold, kind, scale)[0], (q["uid"], said)
            if kind in ("arithmetic", "count") and float(gold[0]) != 0:
                wrong = f"The answer is {float(gold[0]) * 10:g} {scale}."
                assert not grade_sentence(wrong, gold, kind, scale)[0], (q["uid"], wrong)


async def test_the_grader_records_the_answer_type_in_its_grade() -> None:
    grader = TatQA(answer=["-12.6"], answer_type="arithmetic", scale="million")
    right = await grade(grader, Submission("It changed by -12.6 million."), {}, None)
    wrong = await grade(grader, Submission("It changed by 12.6 million."), {}, None)
    assert right.kind == "tatqa" and right.passed and right.detail.startswith("arithmetic:")
    assert not wrong.passed and "-12.6" in wrong.detail and wrong.detail.startswith("arithmetic:")


# --- the suite and the CLI ---------------------------------------------------------------


def test_the_table_is_markdown_with_its_first_row_as_header() -> None:
    text = table_markdown([["", "2019", "2018"], ["Sales | net", "$ 1,452.4"]])
    assert text.splitlines() == [
        "|  | 2019 | 2018 |",
        "|---|---|---|",
        "| Sales \\| net | $ 1,452.4 |  |",
    ]


def test_every_question_is_a_case_with_its_reports_documents(tmp_path: Path) -> None:
    suite = tatqa_suite("dev", docs_dir=tmp_path)
    assert len(suite.cases) == 1668 and suite.name == "tatqa-dev"
    assert collections.Counter(c.kind for c in suite.cases) == {
        "arithmetic": 718,
        "span": 701,
        "multi-span": 217,
        "count": 32,
    }
    case = suite.case("eb787966-fa02-401f-bfaf-ccabf3828b23")
    assert case.goal.startswith("What is the change in Other in 2019 from 2018?")
    assert "scale" in case.goal and case.kind == "arithmetic"
    grader = case.graders[0]
    assert isinstance(grader, TatQA)
    assert (grader.answer, grader.scale) == (["-12.6"], "million")
    table, paragraphs = (suite.base_dir / d for d in case.documents)
    assert table.read_text().splitlines()[3].startswith("| Fixed Price | $ 1,452.4 |")
    assert "(in millions)" in paragraphs.read_text()
    assert len(tatqa_suite("test", docs_dir=tmp_path).cases) == 1663
    # the society reads, then computes (`--set roles.planner.read_first=false` for the ablation)
    assert suite.defaults.roles.planner.read_first is True
    # one view's drafts against another view do not pass (`roles.verifier.confidence`)
    assert suite.defaults.roles.verifier.min_confidence == 0.6


def test_a_stratified_draw_is_proportional_per_type_and_reproducible(tmp_path: Path) -> None:
    def drawn(limit: int, seed: int | None, types: list[str] | None) -> list[tuple[str, str]]:
        suite = tatqa_suite("dev", limit, seed, types, docs_dir=tmp_path)
        return [(c.id, c.kind or "") for c in suite.cases]

    six = drawn(6, 1, ["span", "arithmetic"])
    assert collections.Counter(k for _, k in six) == {"span": 3, "arithmetic": 3}
    assert six == drawn(6, 1, ["span", "arithmetic"]) != drawn(6, 2, ["span", "arithmetic"])
    ten = collections.Counter(k for _, k in drawn(10, 5, None))
    assert ten == {"arithmetic": 4, "span": 4, "multi-span": 1, "count": 1}
    with pytest.raises(ValueError, match="fewer than"):
        tatqa_suite("dev", 1, 1, ["span", "count"], docs_dir=tmp_path)
    with pytest.raises(ValueError, match="answer types"):
        tatqa_suite("dev", 4, 1, ["table"], docs_dir=tmp_path)


def test_society_eval_tatqa_builds_the_drawn_suite(tmp_path: Path) -> None:
    built = build_suite([], False, "dev", 6, 1, "span,arithmetic", tmp_path)
    direct = tatqa_suite("dev", 6, 1, ["span", "arithmetic"], docs_dir=tmp_path / "tatqa-docs")
    assert [c.id for c in built.cases] == [c.id for c in direct.cases]
    assert built.base_dir == (tmp_path / "tatqa-docs").resolve()
    assert all((built.base_dir / d).is_file() for c in built.cases for d in c.documents)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--tatqa", "train"], "--tatqa takes dev or test"),
        (["--tatqa", "dev", "--types", "span,table"], "--types takes"),
        (["--humaneval", "--types", "span"], "--types is for --tatqa"),
        (["--tatqa", "dev", "--humaneval"], "one of them"),
        (["--tatqa", "dev", "--limit", "1", "--types", "span,count"], "fewer than"),
    ],
)
def test_society_eval_refuses_a_bad_split_or_type_with_exit_2(
    args: list[str], said: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, ["eval", *args, "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())
