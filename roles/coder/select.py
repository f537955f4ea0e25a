"""Views, agreement, effort that follows doubt: the answer to a goal is drawn through views
that fail differently — a program, a worked answer in prose (`roles.coder.prose`), then
programs asked other ways — grouped by the values they give, and the group that most views
agree on and that passes the verifier's check (written from the goal alone, before any
candidate) is kept.

Effort follows doubt: the cheapest pair (a program and a prose answer) is drawn first; when
they agree and the check holds, drawing stops. Otherwise views are added one at a time until
a group is clearly ahead (two views agree, or two programs of their own agree) or ``most``
candidates are drawn (a reading's quotation and the report's sentence make no call and do
not count, `roles.coder.groups`); the leading group answers, with the alternatives in its confidence.
A check that fails every candidate is set aside: at 1.5B the verifier often writes out an
answer of its own and compares, and candidates drawn apart are likelier right than one such
check. Every check of the kept answer is one typed verdict
(`bus.verdicts`); its confidence is scored by `roles.verifier.confidence`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from bus.verdicts import CheckVerdict, Confidence
from roles.coder.groups import Check, Group, answer_of, answers_only, groups_of, others_of
from roles.coder.kept_verdicts import too_unsure, verdicts_of
from roles.coder.listed import over_listed
from roles.coder.prose import STEPS_FIRST
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.verifier.checks import Judged
from roles.verifier.confidence import CODE_VIEWS, needs_views, score_of
from roles.verifier.values import numbers

__all__ = [
    "FREE",
    "PLAIN_FIRST",
    "PROGRAMS",
    "VARIANTS",
    "VIEWS",
    "Group",
    "Selection",
    "View",
    "groups_of",
    "select",
]

VARIANTS = (
    "",
    "Solve this task on your own, as an independent check of a teammate's work: compute "
    "every output from the values, step by step, and write them as asked.",
    "Write the program another way than the most direct one (another method or library, or "
    "by counting or simulating), so that its result is an independent computation.",
    "First write, as comments, what the goal asks and each quantity it gives; then compute "
    "the outputs from them.",
)
"""What each program's request adds (the first is the task as it is): at temperature 0,
other words draw another program."""


@dataclass(frozen=True)
class View:
    """One way of drawing a candidate: its kind (``program``, ``prose``; ``plain``: a program
    asked as a person asks it, `roles.coder.plain`; ``quotation``: the
    researcher's quotation of the answer; ``sentence``: the report's sentence the goal matches
    best; ``table``: the arithmetic the goal's words ask of the report's table, worked by
    code — none of these three makes a call) and what its request adds."""

    kind: Literal["program", "plain", "prose", "quotation", "sentence", "table"]
    note: str = ""


VIEWS: tuple[View, ...] = (
    View("program", VARIANTS[0]),
    View("prose"),
    View("program", VARIANTS[1]),
    View("program", VARIANTS[2]),
    View("prose", STEPS_FIRST),
    View("program", VARIANTS[3]),
)
"""In the order drawn: the cheapest pair of views first, then programs asked other ways and a
second prose answer."""

PROGRAMS: tuple[View, ...] = tuple(v for v in VIEWS if v.kind == "program")
"""The views when prose is not asked for (a task with outputs other than the answer)."""

PLAIN_FIRST: tuple[View, ...] = (PROGRAMS[0], View("plain"), *PROGRAMS[1:])
"""With the coder's ``plain`` on, for a task whose one output is the answer: the team's
program and one asked as a person asks it are the cheapest pair, then programs asked other
ways."""

FREE = frozenset({"quotation", "sentence", "table"})
"""The views drawn with no model call: they do not count against the candidates drawn."""

Draw = Callable[[View], Awaitable[Solved]]
"""One candidate: the view -> its answer (a program that ran and passed its checks, or a
prose answer's final value)."""
Judge = Callable[[list[str]], Awaitable[Judged]]
"""The verifier's check over candidate answers."""


@dataclass(frozen=True)
class Selection:
    """The kept candidate, the verdicts on it, why it is not verified (or ""), how sure it
    is, and the candidates level with it."""

    kept: Solved
    verdicts: list[CheckVerdict] = field(default_factory=list)
    note: str = ""
    drawn: int = 0
    failures: list[str] = field(default_factory=list)
    confidence: Confidence | None = None
    level: list[Selection] = field(default_factory=list)
    """Each group that ranked level with the kept one's (none was ahead), as it would have
    been kept, its verdicts and confidence its own: a check of the whole goal that agrees
    with one of them picks it (`roles.manager.final`)."""


def _ahead(best: Group, output: str, quoted: frozenset[float]) -> bool:
    """Whether ``best`` is clearly ahead: two views agree on it, or two computations of their
    own of one view do, and its value may pass on one view — else (a trivial value, or the
    goal's own) only two representations (a program and a worked answer) do."""
    found = not needs_views(answer_of(best.kept, output), quoted)
    if best.kinds >= 2 and (found or best.representations >= 2):
        return True
    return best.agreeing >= 2 and found


async def select(
    draw: Draw,
    judge: Judge | None,
    output: str,
    quoted: frozenset[float],
    most: int,
    views: Sequence[View] = VIEWS,
    min_confidence: float = 0.0,
    text: bool = False,
    asked: int = 0,
) -> Selection:
    """Draw up to ``most`` candidates through ``views`` until one group is clearly ahead,
    judge them, keep the best group (``text``: the goal asks for a clause of the report's
    text, and the report's sentence is a view that counts, `roles.coder.groups`; ``asked``:
    how many values the verifier said the goal asks, and a quotation answering with more
    items is not verified, `roles.coder.listed`). Raises `TaskFailed` when no candidate gave an answer."""
    cands: list[Solved] = []
    failures: list[str] = []
    last: TaskFailed | None = None
    judged: Judged | None = None
    drawn = 0
    for place, view in enumerate(_within(views, most)):
        drawn += 1
        try:
            cands.append(replace(await draw(view), drawn_by=place))
        except TaskFailed as exc:
            failures.append(str(exc))
            last = exc
            continue
        groups = answers_only(groups_of(cands, quoted, output, text))
        if len(cands) < 2:
            continue
        judged = await judge([answer_of(g.kept, output) for g in groups]) if judge else None
        best = _best(groups, judged, output, quoted)
        if _ahead(best, output, quoted) and (judged is None or _passed(judged, groups.index(best))):
            break
    if not cands:  # the last failure as it was: a model outage stays one (its cause)
        raise last if last is not None else TaskFailed("no candidate program ran")
    groups = answers_only(groups_of(cands, quoted, output, text))
    if judge is not None and (judged is None or len(judged.outcomes) != len(groups)):
        judged = await judge([answer_of(g.kept, output) for g in groups])
    if judged is not None and judged.usable and all(o != "pass" for o, _ in judged.outcomes):
        why = "it fails every candidate, so it is likelier wrong than all of them"
        judged = Judged(judged.outcomes, False, why, judged.exec_id)
    best, *level = _level(groups, judged, output, quoted)
    words = [_word(judged, i) for i in range(len(groups))]

    def selected(group: Group) -> Selection:
        failed = judged is not None and judged.usable and not _passed(judged, groups.index(group))
        confidence = score_of(
            group.counted,
            [(answer_of(g.kept, output), g.counted) for g in groups if g is not group],
            agreeing_drafts=group.agreeing,
            check_failed=failed,
        )
        confidence = confidence.model_copy(
            update={"others": others_of(groups, group, output, words)}
        )
        verdicts, note = verdicts_of(group, groups, judged, output, quoted)
        if confidence.score < min_confidence and not any(not v.passed for v in verdicts):
            verdicts.append(too_unsure(group, confidence, min_confidence))
            note = note or verdicts[-1].what
        kept = _answering(group, output, quoted)
        listed = over_listed(answer_of(kept, output), asked) if kept.view == "quotation" else None
        if listed is not None:
            verdicts.append(listed)
            note = note or listed.what
        return Selection(kept, verdicts, note, drawn, failures, confidence)

    return replace(selected(best), level=[selected(g) for g in level])


def _within(views: Sequence[View], most: int) -> list[View]:
    """The views drawn at most: in order, until ``most`` of them would make a call (a view
    in `FREE` makes none)."""
    chosen: list[View] = []
    costly = 0
    for view in views:
        if view.kind not in FREE:
            if costly >= max(1, most):
                break
            costly += 1
        chosen.append(view)
    return chosen


def _answering(group: Group, output: str, quoted: frozenset[float]) -> Solved:
    """The member that answers for ``group``: the report's sentence when one agrees (a
    clause that stands in it is answered in the report's whole words); else its kept one,
    unless that is a quotation and another member states more values than the goal gave
    (values agree when those of the shorter statement are all in the longer: a quotation of
    one price, where a worked answer gave the four asked for, is not the answer)."""
    sentence = next((m for m in group.members if m.view == "sentence"), None)
    if sentence is not None and len(group.members) > 1:
        return sentence
    kept = group.kept
    if kept.view != "quotation":
        return kept

    def stated(s: Solved) -> int:
        return len([n for n in numbers(answer_of(s, output)) if n not in quoted])

    return max(group.members, key=lambda m: (stated(m), m is kept))


def _passed(judged: Judged, index: int) -> bool:
    return judged.usable and judged.outcomes[index][0] == "pass"


def _word(judged: Judged | None, index: int) -> Check:
    if judged is None or not judged.usable:
        return "none"
    return "passed" if _passed(judged, index) else "failed"


def _level(
    groups: list[Group],
    judged: Judged | None,
    output: str = "",
    quoted: frozenset[float] = frozenset(),
) -> list[Group]:
    """The groups level at the top, the one kept first: the group most views agree on among
    those that pass the check (when it is usable), else among all; on a tie, one whose value
    is not trivial nor only the goal's own numbers (`needs_views`: what a program that found
    nothing gives), then, among programs alone, the one drawn by the view asked furthest from
    the direct way, the order of ``views`` (on 52 of the dev suite's train goals, 1.5B, the
    first answer of the program asked "another way" was right 21 times in 40, the direct
    one's 18 in 46), else the first drawn (a reading's worked answer leads its quotation,
    `roles.coder.quotation.reading_views`). A view that makes no call, alone, is kept only
    when no model view answered: on 13 TAT-QA dev questions (1.5B) the researcher's lone
    quotation was right on none, and a check the verifier got wrong ("a percentage" for "In
    which year …?") passed it over two worked answers that were right. The table's
    arithmetic, worked by code, leads as many views that agree without it, two drafts of one
    view among them: offline on dev it is right on 83 % of the arithmetic it answers, and in
    the TAT-QA results so far two worked answers agreeing on arithmetic were right 14 times
    in 27. When the goal asks for
    a clause of the report's text, its sentence is an answer alone and leads a worked answer
    on a tie (`roles.reports.questions`: BM25's first sentence holds 78 % of them on dev)."""
    answers = [g for g in groups if len(g.members) > 1 or not _free(g)] or groups
    shown = {id(a) for a in answers}
    passing = [g for i, g in enumerate(groups) if id(g) in shown and _word(judged, i) == "passed"]
    pool = passing or answers

    def rank(g: Group) -> tuple[int, bool, int, int, bool, bool]:
        found = not needs_views(answer_of(g.kept, output), quoted)
        table = bool(CODE_VIEWS & set(g.views))
        return (
            g.answering,
            table,
            g.agreeing,
            len(g.counted),
            found,
            g.text and "sentence" in g.views,
        )

    top = max(rank(g) for g in pool)
    tied = [g for g in pool if rank(g) == top]
    if len(tied) > 1 and all(set(g.views) == {"program"} for g in tied):
        tied.sort(
            key=lambda g: (max(m.drawn_by for m in g.members), -groups.index(g)), reverse=True
        )
    return tied


def _free(g: Group) -> bool:
    """Whether ``g`` is one view that makes no call, and no answer alone: the report's
    sentence is one when the goal asks for text, a view worked by code always (the table's
    cells found and read or worked, `roles.reports.cells`)."""
    view = g.views[0]
    return view in FREE and view not in CODE_VIEWS and not (g.text and view == "sentence")


def _best(
    groups: list[Group],
    judged: Judged | None,
    output: str = "",
    quoted: frozenset[float] = frozenset(),
) -> Group:
    """The group kept: the first of `_level`."""
    return _level(groups, judged, output, quoted)[0]
