"""A task answered from a reading (the reading plan's ``evidence``, ``values`` and
``quoted``): a worked answer in prose from the documents alone, never shown the reading, is
one view, and the other is the researcher's quotation when it quoted the answer in the
report's own words (no program retypes it and no model call is made) or else a program
computing from the quoted values (`reading_views`). With the coder's checks off, the
quotation is the answer as it is (`by_quotation`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

from autogen_core.models import LLMMessage
from pydantic import JsonValue

from bus import Envelope
from bus.evidence import EVIDENCE, QUOTED, READING
from bus.payloads import TaskAssignment, TaskResult
from roles.coder import prose
from roles.coder.prose import STEPS_FIRST
from roles.coder.select import PLAIN_FIRST, PROGRAMS, VARIANTS, VIEWS, View
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.reports.cells import doubted, from_table
from roles.reports.questions import asks_for_text
from roles.reports.scale import in_scale
from roles.reports.sentences import best_sentence, question_of, sentence_for

__all__ = [
    "COMPUTED_VIEWS",
    "QUOTED_VIEWS",
    "READING",
    "TEXT_VIEWS",
    "by_quotation",
    "from_reading",
    "own_inputs",
    "prose_request",
    "quotation_of",
    "quoted_candidate",
    "reading_views",
    "scaled",
    "sentence_candidate",
    "table_candidate",
    "text_asked",
    "views_for",
    "worded",
]

OWN_ANSWER = "Answer the overall goal from the documents."
"""The prose view's task beside a reading: the goal itself, not the task of answering from
the reading (which it is not given)."""

WHOLE_GOAL = "Answer the overall goal: work out every value it asks for."
"""The prose view's task for a task that gives the answer."""

READER = (
    "You are a careful analyst. Read the documents and work the question out step by step in "
    "words and arithmetic; do not write code. End with one line that starts with 'Answer:' "
    "and gives every value or item the question asks for, in the documents' own words where "
    "they state it."
)
"""The system prompt of a worked answer from the documents alone: the prose view's own asks
for one value "and nothing else", which on a question asking for a reason or for several
items cuts the answer short."""

QUOTED_VIEWS: tuple[View, ...] = (
    View("prose"),
    View("quotation"),
    View("sentence"),
    View("prose", STEPS_FIRST),
)
"""When the researcher quoted the answer: a worked answer from the documents, then the
quotation (no call); when they disagree, the report's sentence the goal matches best (no
call) and a second worked answer, asked another way. No program: one from the reading would
pass the quotation on, and agree with it on nothing."""

COMPUTED_VIEWS: tuple[View, ...] = (
    View("prose"),
    View("program", VARIANTS[0]),
    View("sentence"),
    View("prose", STEPS_FIRST),
)
"""When the answer is computed: a worked answer from the documents, then a program from the
quoted values; the report's sentence (no call) and a second worked answer when they
disagree (a researcher that took a clause of the text for a computation)."""


TEXT_VIEWS: tuple[View, ...] = (
    View("sentence"),
    View("prose"),
    View("quotation"),
    View("prose", STEPS_FIRST),
)
"""When the goal asks for a clause of the report's text: the report's sentence the goal
matches best (no call), then a worked answer (the two agree when its answer stands in the
sentence), then the quotation if the researcher gave one (no call) and a second worked
answer. No program: nothing is computed."""


def from_reading(assignment: TaskAssignment) -> bool:
    """Whether the task answers from a reading (it takes the researcher's evidence)."""
    return EVIDENCE in assignment.task.inputs


def text_asked(assignment: TaskAssignment) -> bool:
    """Whether the task answers from a reading a goal that asks for a clause of the report's
    text (`roles.reports.questions.asks_for_text`)."""
    return from_reading(assignment) and asks_for_text(question_of(assignment.goal))


def reading_views(
    assignment: TaskAssignment, documents: Mapping[str, str] | None = None
) -> tuple[View, ...]:
    """The views of a task that answers from a reading, the worked answer from the documents
    first: when no two agree, the first drawn answers, and on five TAT-QA dev questions
    (1.5B) the researcher's quotation was right on none, a worked answer on one, one direct
    call on three of four. When the goal asks for text, the report's sentence first
    (`TEXT_VIEWS`; the quotation only when there is one). Otherwise, when code can work the
    arithmetic the goal's words ask of the ``documents``' table, or read the figures they
    ask, that first (`roles.reports.cells.from_table`: on TAT-QA dev right on 85 % of the
    arithmetic and 77 % of the figures it answers, no call): a worked answer that agrees
    with it ends the drawing at one call."""
    quoted = quotation_of(assignment) is not None
    if text_asked(assignment):
        return tuple(v for v in TEXT_VIEWS if quoted or v.kind != "quotation")
    views = QUOTED_VIEWS if quoted else COMPUTED_VIEWS
    if documents is not None and from_table(question_of(assignment.goal), documents):
        return (View("table"), *views)
    return views


def own_inputs(assignment: TaskAssignment) -> dict[str, JsonValue]:
    """The task's values less the reading's: what a view drawn apart from it is given."""
    return {k: v for k, v in assignment.inputs.items() if k not in READING}


def prose_request(
    assignment: TaskAssignment, documents: Mapping[str, str], note: str
) -> list[LLMMessage]:
    """A prose view's request; beside a reading, the goal from the documents alone (a worked
    answer that saw the quotation would repeat it, and agree with it on nothing)."""
    if not from_reading(assignment):
        # the answer task's own words are a program's ("the program computes every value")
        task = WHOLE_GOAL if assignment.task.outputs == ["answer"] else assignment.task.description
        return prose.request(assignment.goal, task, assignment.inputs, documents, note)
    inputs = own_inputs(assignment)
    return prose.request(assignment.goal, OWN_ANSWER, inputs, documents, note, READER)


def quoted_candidate(assignment: TaskAssignment) -> Solved:
    """The quotation view's candidate: the quotation as it stands (no call)."""
    return Solved({"answer": quotation_of(assignment) or ""}, {}, "", 0, view="quotation")


def sentence_candidate(assignment: TaskAssignment, documents: Mapping[str, str]) -> Solved:
    """The sentence view's candidate: the documents' sentence that the goal's question matches
    best (`roles.reports.sentences`; no call). Raises `TaskFailed` when the documents have no
    text that shares a word with it."""
    found = best_sentence(question_of(assignment.goal), documents)
    if found is None:
        msg = "no sentence of the documents matches the goal"
        raise TaskFailed(msg)
    return Solved({"answer": found}, {}, "", 0, view="sentence")


def table_candidate(assignment: TaskAssignment, documents: Mapping[str, str]) -> Solved:
    """The table view's candidate: the arithmetic the goal's words ask of the documents'
    table, or the figures they ask to be read from it, found by code
    (`roles.reports.cells.from_table`; no call), how it was found in its ``worked.txt``;
    with the scale of the table it was worked from, whatever kind of value
    the verifier stated (on TAT-QA dev at 1.5B the verifier called an average of two "€m"
    figures a percentage, and a bare "984" is another number than the report's). In doubt
    (no evidence, `roles.coder.groups`) when the goal says words no table says
    (`roles.reports.cells.doubted`). Raises `TaskFailed` when code cannot work it."""
    found = from_table(question_of(assignment.goal), documents)
    if found is None:
        msg = "the goal's words name no figure or arithmetic of the documents' tables"
        raise TaskFailed(msg)
    shown = found.shown()
    words = doubted(question_of(assignment.goal), documents, found)
    doubt = (
        f"the goal says {', '.join(map(repr, words))}, which no table of the report says: "
        "the table's figures may answer another question"
        if words
        else ""
    )
    files = {"worked.txt": "".join(f"{line}\n" for line in (shown, doubt) if line).encode()}
    return Solved({"answer": found.answer()}, files, "", 0, code=shown, view="table", doubt=doubt)


def views_for(
    assignment: TaskAssignment,
    prose_on: bool,
    documents: Mapping[str, str] | None = None,
    plain_on: bool = False,
) -> tuple[View, ...]:
    """The views a task's answer is drawn through: a reading's (`reading_views`: prose apart
    from it, always); programs and a worked answer with the coder's prose on; the team's
    program and a plain one first with its ``plain`` on (`roles.coder.plain`); else
    programs."""
    if assignment.task.outputs != ["answer"]:
        return PROGRAMS
    if from_reading(assignment):
        return reading_views(assignment, documents)
    if prose_on:
        return VIEWS
    return PLAIN_FIRST if plain_on else PROGRAMS


def scaled(
    solved: Solved, kind: str, assignment: TaskAssignment, documents: Mapping[str, str]
) -> Solved:
    """A view's amount (the verifier's ``kind``) computed from a reading, with the scale of
    the report's tables (`roles.reports.scale.in_scale`): a worked answer of 1.5B on TAT-QA
    dev computed the right average of two "€m" figures and stated it bare, another number
    than the report's. Any other candidate as it is."""
    answer = solved.outputs.get("answer")
    if kind != "amount" or not from_reading(assignment) or not isinstance(answer, str):
        return solved
    if (given := in_scale(answer, assignment.goal, documents)) == answer:
        return solved
    return replace(solved, outputs={**solved.outputs, "answer": given})


def worded(solved: Solved, assignment: TaskAssignment, documents: Mapping[str, str]) -> Solved:
    """A worked answer from a reading that is a clause of the report's text, answered by the
    sentence it stands in (`roles.reports.sentences.sentence_for`): a 1.5B worked answer
    words the report's reason its own way, and the report's words are the answer. Any other
    candidate as it is."""
    answer = solved.outputs.get("answer")
    if solved.view != "prose" or not from_reading(assignment) or not isinstance(answer, str):
        return solved
    found = sentence_for(answer, documents, question_of(assignment.goal))
    if found is None:
        return solved
    return replace(solved, outputs={**solved.outputs, "answer": found})


def quotation_of(assignment: TaskAssignment) -> str | None:
    """The quotation that answers the task, or None (none given, or nothing in it)."""
    if "answer" not in assignment.task.outputs or QUOTED not in assignment.task.inputs:
        return None
    value: JsonValue = assignment.inputs.get(QUOTED)
    if isinstance(value, list):
        items = [str(v).strip() for v in value if str(v).strip()]
        return "; ".join(items) or None
    if isinstance(value, str):
        return value.strip() or None
    return None


class _Role(Protocol):
    @property
    def name(self) -> str: ...


async def by_quotation(coder: _Role, env: Envelope, assignment: TaskAssignment) -> TaskResult:
    """The answer: the quotation as it is, with no verdict of its own."""
    quoted = quotation_of(assignment)
    assert quoted is not None  # the strategy fits only then
    return TaskResult(
        task_id=assignment.task.id,
        role=coder.name,
        attempt=assignment.attempt,
        status="done",
        outputs={"answer": quoted},
        summary="answered by the researcher's quotation, as it stands in the documents",
    )
