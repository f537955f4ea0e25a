"""A goal over a report is team work, on scripted answers: the researcher quotes the
evidence, code confirms every quote stands in the documents, and the coder answers from the
quotes — computing a value with its scale, or giving a span as it was quoted — and a worked
answer from the documents alone, which never saw the reading, must agree. A quote that is
not in the documents is sent back once, and an answer resting on one is never verified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bus.payloads import Final, TaskResult

from .conftest import RunYaml, payloads, records

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(180)]

TABLE = """| (in thousands) | 2019 | 2018 |
|---|---|---|
| Revenue | $1,234 | $1,000 |
| Net loss | (56) | (40) |
"""
PARAGRAPHS = "Revenue grew because of strong demand in Asia.\n\nCosts fell.\n"

CHANGE = """
import json
i = json.load(open("inputs.json"))
def number(t):
    t = t.replace(",", "").replace("$", "").strip()
    return -float(t[1:-1]) if t.startswith("(") else float(t)
by_year = {q["column"]: number(q["text"]) for q in i["evidence"]}
change = by_year["2019"] - by_year["2018"]
json.dump({"answer": f"Revenue changed by {change:,.0f} thousand"}, open("outputs.json", "w"))
"""
CHANGE_WORKED = (
    "From the table, revenue was $1,000 in 2018 and $1,234 in 2019.\nAnswer: 234 thousand"
)
SPAN_WORKED = "The paragraph says why.\nAnswer: strong demand in Asia"
QUOTED = """
import json
i = json.load(open("inputs.json"))
json.dump({"answer": i["quoted"]}, open("outputs.json", "w"))
"""


def quote(text: str, row: str = "", column: str = "", source: str = "table.md") -> str:
    return json.dumps({"text": text, "source": source, "row": row, "column": column})


def researcher_says(quotes: list[str], quoted: str = "", answer_is: str = "stated") -> str:
    """One scripted research answer (a YAML list item)."""
    answer = (
        f'{{"quotes": [{", ".join(quotes)}], "answer_is": "{answer_is}", '
        f'"outputs": {{"quoted": {json.dumps(quoted)}}}}}'
    )
    return f"    - answer: '{answer}'"


def fenced(match: str, program: str) -> str:
    """A scripted coder answer for prompts holding ``match``: the program in a fence."""
    block = "".join(f"\n        {line}" for line in program.strip().splitlines())
    return f"    - match: '{match}'\n      answer: |\n        ```python{block}\n        ```"


def worked(text: str) -> str:
    """A scripted worked answer in prose (the view drawn from the documents alone)."""
    return f"    - match: 'Work it out in words'\n      answer: {json.dumps(text)}"


def scenario(
    goal: str, research: list[str], program: str, prose: str | list[str], kind: str
) -> str:
    """The researcher's answers; the verifier's statement (``kind``); the coder's program
    answering from the reading, and its worked answer from the documents alone."""
    return (
        f"""
name: team
goal: {{text: {json.dumps(goal)}}}
models: {{default: {{provider: scripted}}}}
roles:
  planner: {{read_first: true}}
  researcher: {{corpus: [report]}}
sandbox: {{timeout_s: 20, pool_size: 1}}
budgets: {{wall_s: 150, replans: 0}}
script:
  researcher:
"""
        + "\n".join(research)
        + f"\n  coder:\n    - instructions: without seeing it\n      answer: {{kind: {kind}}}\n"
        + fenced("evidence the researcher quoted", program)
        + "\n"
        + "\n".join(worked(p) for p in ([prose] if isinstance(prose, str) else prose))
        + "\n"
    )


def prose_prompts(run_dir: Path) -> list[str]:
    """The prompts of the worked answers in prose."""
    asked = [p.read_text() for p in (run_dir / "prompts").iterdir()]
    return [a for a in asked if "Work it out in words" in a]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "table.md").write_text(TABLE)
    (folder / "paragraphs.md").write_text(PARAGRAPHS)
    return folder


def verdicts(final: Final) -> dict[str, bool]:
    assert final.verdict is not None
    return {v.kind: v.passed for v in final.verdict.verdicts}


async def test_the_researchers_quotes_reach_the_coder_and_its_value_comes_back_with_its_scale(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019"), quote("$1,000", "Revenue", "2018")]
    goal = "By how much did revenue grow from 2018 to 2019?"  # no operation code can work
    # a figure put in `quoted` for an answer the researcher says is computed is set aside
    said = researcher_says(quotes, quoted="$1,234", answer_is="computed")
    outcome = await run_yaml(scenario(goal, [said], CHANGE, CHANGE_WORKED, "amount"))
    (plan,) = payloads(outcome, "plan")
    assert [(t.id, t.role) for t in plan.tasks] == [("read", "researcher"), ("solve", "coder")]
    (decision,) = payloads(outcome, "plan_decision")
    assert "goal_check" not in decision.repaired  # the worked answer is the check
    read, solve = (
        next(r for r in payloads(outcome, "result") if r.task_id == tid)
        for tid in ("read", "solve")
    )
    assert isinstance(read, TaskResult) and [q.text for q in read.quotes] == ["$1,234", "$1,000"]
    (assigned,) = [a for a in payloads(outcome, "task") if a.task.id == "solve"]
    assert [q["text"] for q in assigned.inputs["evidence"]] == ["$1,234", "$1,000"]
    assert assigned.inputs["values"] == {"Revenue (2019)": 1234.0, "Revenue (2018)": 1000.0}
    assert assigned.inputs["quoted"] == ""
    assert solve.outputs["answer"] == "Revenue changed by 234 thousand"
    # the worked answer was drawn apart from the reading: it saw the report, not the quotes
    (prose,) = prose_prompts(outcome.run_dir)
    assert "Revenue (2019)" not in prose and "Answer the overall goal from the documents" in prose
    assert "| Revenue | $1,234 | $1,000 |" in prose
    assert outcome.final is not None and outcome.final.answer == "Revenue changed by 234 thousand"
    assert verdicts(outcome.final) == {"grounding": True, "views": True, "property": True}
    assert outcome.state.role_calls["researcher"] == 1  # which roles did work, counted
    assert outcome.state.role_calls["coder"] == 3  # the verifier, the program, the prose
    assert outcome.final.status == "succeeded"


async def test_a_span_is_answered_as_it_was_quoted_with_no_program_retyping_it(
    run_yaml: RunYaml, report: Path
) -> None:
    span = "strong demand in Asia"
    quotes = [quote(span, source="paragraphs.md")]
    goal = "What made revenue grow?"  # not asked "why": a span, not the report's clause
    research = [researcher_says(quotes, quoted=span)]
    outcome = await run_yaml(scenario(goal, research, QUOTED, SPAN_WORKED, "text"))
    assert outcome.final is not None and outcome.final.answer == span
    assert verdicts(outcome.final) == {"grounding": True, "views": True, "property": True}
    assert outcome.final.status == "succeeded"
    (views,) = [v for v in outcome.final.verdict.verdicts if v.kind == "views"]  # type: ignore[union-attr]
    assert "a worked answer in prose and the researcher's quotation" in views.what
    ran = [
        r
        for r in records(outcome)
        if r.envelope and r.envelope.payload.type == "exec_request" and r.envelope.task_id
    ]
    assert all(r.envelope and r.envelope.task_id == "solve" for r in ran)  # the verifier's check
    assert outcome.state.role_calls["coder"] == 2  # the verifier and the prose; no program


async def test_a_clause_the_quotation_missed_is_answered_by_the_reports_own_sentence(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019")]  # a figure, where the text gives the reason
    research = [researcher_says(quotes, quoted="$1,234")]
    # "why" asks for the report's text: the verifier's kind is "text" by the goal's words
    outcome = await run_yaml(
        scenario("Why did revenue grow?", research, QUOTED, SPAN_WORKED, "amount")
    )
    assert outcome.final is not None
    assert outcome.final.answer == "Revenue grew because of strong demand in Asia."
    assert outcome.final.status == "succeeded"
    (views,) = [v for v in outcome.final.verdict.verdicts if v.kind == "views"]  # type: ignore[union-attr]
    assert "the report's sentence the goal matches best and a worked answer in prose" in views.what
    assert verdicts(outcome.final)["property"]
    assert outcome.state.role_calls["coder"] == 1  # the prose alone: no verifier call


async def test_a_figure_quoted_from_a_table_carries_the_tables_scale(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019")]
    goal = "What was the revenue in 2019?"
    research = [researcher_says(quotes).replace('"quoted": ""', '"quoted": ["$1,234"]')]
    worked = "The table gives revenue in thousands.\nAnswer: $1,234 thousand"
    outcome = await run_yaml(scenario(goal, research, QUOTED, worked, "amount"))
    assert outcome.final is not None and outcome.final.answer == "$1,234 thousand"
    assert outcome.final.status == "succeeded"


@pytest.mark.parametrize(("kind", "answer"), [("amount", "234 thousand"), ("count", "234")])
async def test_an_amount_computed_bare_from_the_tables_figures_takes_their_scale(
    run_yaml: RunYaml, report: Path, kind: str, answer: str
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019"), quote("$1,000", "Revenue", "2018")]
    goal = "By how much did revenue grow from 2018 to 2019?"
    said = researcher_says(quotes, answer_is="computed")
    bare = CHANGE.replace("Revenue changed by {change:,.0f} thousand", "{change:,.0f}")
    worked = "From the table, revenue rose from $1,000 to $1,234.\nTherefore, it rose by $234."
    outcome = await run_yaml(scenario(goal, [said], bare, worked, kind))
    assert outcome.final is not None and outcome.final.answer == answer  # only an amount
    assert verdicts(outcome.final)["views"] is True  # "234" and "$234", both scaled or not


async def test_arithmetic_code_works_from_the_table_and_a_worked_answer_agree_with_no_program(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019"), quote("$1,000", "Revenue", "2018")]
    goal = "What was the percentage change in revenue from 2018 to 2019?"
    said = researcher_says(quotes, answer_is="computed")
    worked = "Revenue rose from $1,000 to $1,234, by 234 of 1,000.\nAnswer: 23.4%"
    outcome = await run_yaml(scenario(goal, [said], CHANGE, worked, "percentage"))
    assert outcome.final is not None and outcome.final.answer == "23.40%"
    assert outcome.final.status == "succeeded"
    (views,) = [v for v in outcome.final.verdict.verdicts if v.kind == "views"]  # type: ignore[union-attr]
    assert "worked by code and a worked answer in prose" in views.what
    solve = next(r for r in payloads(outcome, "result") if r.task_id == "solve")
    assert isinstance(solve, TaskResult)
    assert "($1,234 - $1,000) / $1,000 × 100 = 23.40%" in solve.summary  # how, for a person
    assert outcome.state.role_calls["coder"] == 2  # the verifier and the prose; no program


async def test_a_quotation_two_worked_answers_disagree_with_gives_way_and_is_shown(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,000", "Revenue", "2018")]  # the other year's figure
    goal = "What was the revenue in the latest year?"  # no year: code reads no cell
    research = [researcher_says(quotes, quoted="$1,000")]
    worked = "The table gives revenue in thousands.\nAnswer: $1,234 thousand"
    outcome = await run_yaml(scenario(goal, research, QUOTED, [worked, worked], "amount"))
    assert outcome.final is not None and outcome.final.answer == "$1,234 thousand"
    confidence = outcome.final.verdict.confidence  # type: ignore[union-attr]
    assert confidence is not None and confidence.alternatives == ["$1,000 thousand (quotation)"]
    assert outcome.state.role_calls["coder"] == 3  # the verifier and two worked answers


async def test_a_worked_answer_stating_every_item_answers_where_the_quotation_has_one(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019")]
    goal = "What was the revenue in each year?"
    research = [researcher_says(quotes, quoted="$1,234")]
    both = "Answer: $1,234 thousand in 2019 and $1,000 thousand in 2018"
    outcome = await run_yaml(scenario(goal, research, QUOTED, f"Both years.\n{both}", "amount"))
    assert outcome.final is not None and outcome.final.answer == both.removeprefix("Answer: ")


async def test_a_quote_not_in_the_documents_goes_back_once_and_the_answer_is_not_verified(
    run_yaml: RunYaml, report: Path
) -> None:
    made_up = [quote("$1,299", "Revenue", "2019"), quote("$1,000", "Revenue", "2018")]
    research = [researcher_says(made_up, answer_is="computed")] * 2
    goal = "What was the change in revenue from 2018 to 2019?"
    wrong = CHANGE_WORKED.replace("234", "299").replace("$1,299", "$1,234")
    outcome = await run_yaml(scenario(goal, research, CHANGE, wrong, "amount"))
    asked = [json.loads(p.read_text()) for p in (outcome.run_dir / "prompts").iterdir()]
    told = [a for a in asked if "Code checked your quotes" in json.dumps(a)]
    assert len(told) == 1 and "holds '$1,234'" in json.dumps(told[0])
    assert "table.md: rows 'Revenue', 'Net loss'" in json.dumps(told[0])  # labels, to do better
    assert outcome.final is not None and outcome.final.answer == "Revenue changed by 299 thousand"
    assert verdicts(outcome.final)["views"] is True  # the views agreed on the made-up figure,
    assert verdicts(outcome.final)["grounding"] is False  # but it is not in the report
    assert outcome.final.status != "succeeded"


async def test_an_answer_two_views_apart_from_the_reading_agree_on_stands_on_a_wrong_quote(
    run_yaml: RunYaml, report: Path
) -> None:
    made_up = [quote("$1,299", "Revenue", "2019"), quote("$1,000", "Revenue", "2018")]
    research = [researcher_says(made_up, answer_is="computed")] * 2
    goal = "What was the percentage change in revenue from 2018 to 2019?"
    worked = "Revenue rose from $1,000 to $1,234, by 234 of 1,000.\nAnswer: 23.4%"
    outcome = await run_yaml(scenario(goal, research, CHANGE, worked, "percentage"))
    assert outcome.final is not None and outcome.final.answer == "23.40%"
    assert outcome.final.verdict is not None and outcome.final.verdict.verified
    assert outcome.final.status == "succeeded"  # the table and the prose never read the quotes
    confidence = outcome.final.verdict.confidence
    assert confidence is not None and set(confidence.views) == {"table", "prose"}
    grounded = [
        v
        for r in payloads(outcome, "result")
        if isinstance(r, TaskResult)
        for v in r.verdicts
        if v.kind == "grounding"
    ]
    assert grounded and not any(v.passed for v in grounded)  # the reading's failure is logged


async def test_a_figure_code_reads_from_the_table_and_the_quotation_outvote_a_misread(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019")]
    goal = "What was the revenue in 2019?"
    research = [researcher_says(quotes, quoted="$1,234")]
    misread = "The table gives revenue in thousands.\nAnswer: $1,000 thousand"
    outcome = await run_yaml(scenario(goal, research, QUOTED, [misread, misread], "amount"))
    assert outcome.final is not None and outcome.final.answer == "$1,234 thousand"
    assert outcome.final.status == "succeeded"
    confidence = outcome.final.verdict.confidence  # type: ignore[union-attr]
    assert confidence is not None and set(confidence.views) == {"table", "quotation"}
    assert confidence.alternatives == ["$1,000 thousand (prose)"]


async def test_a_table_figure_for_words_no_table_says_is_an_answer_but_verifies_nothing(
    run_yaml: RunYaml, report: Path
) -> None:
    quotes = [quote("$1,234", "Revenue", "2019")]
    goal = "What was the revenue per share in 2019?"  # code reads the Revenue row all the same
    said = researcher_says(quotes, answer_is="computed")
    worked = "The table gives revenue in thousands.\nAnswer: $1,234 thousand"
    other = "Revenue per share is not given; the 2018 figure.\nAnswer: $1,000 thousand"
    outcome = await run_yaml(scenario(goal, [said], CHANGE, [worked, other], "amount"))
    assert outcome.final is not None and outcome.final.answer == "$1,234 thousand"
    assert outcome.final.status != "succeeded"  # before: the table and the prose, verified
    assert outcome.state.role_calls["coder"] >= 3  # drawn on past the worked answer
    confidence = outcome.final.verdict.confidence  # type: ignore[union-attr]
    assert confidence is not None and "table" not in confidence.views
    said_why = " ".join(v.what for v in outcome.final.verdict.verdicts)  # type: ignore[union-attr]
    assert "'per', 'share'" in said_why
