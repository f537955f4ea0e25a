"""What the final message says: the answer and the outputs of the completed tasks, and a
one-line summary of what the run did and spent."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import JsonValue

from bus.evidence import READING
from bus.payloads import Artifact, Final, Goal
from bus.verdicts import CheckVerdict, Confidence, Verdict
from roles.budget import BudgetTracker
from roles.manager.ledger import Ledger
from roles.manager.scheduler import Scheduler, TaskState
from roles.verifier.confidence import apart
from roles.verifier.goal_check import GOAL_CHECK, OUTPUT, GoalCheck, covers, standing
from roles.verifier.rule import unverified_reason, verdict_of
from roles.verifier.values import as_text

__all__ = [
    "NO_ANSWER",
    "final_answer",
    "final_message",
    "final_summary",
    "given_to_answer",
    "stated",
    "synthesize",
]


NO_ANSWER = (
    "every task of the plan is done but none produced the answer: give the last task an "
    'output named "answer" that states every value the goal asks for'
)
"""Why a plan whose tasks all finished without an answer is revised."""


def _checks(sched: Scheduler | None) -> set[str]:
    """The tasks that check the answer rather than give it (the goal check)."""
    if sched is None:
        return set()
    return {tid for tid, st in sched.status.items() if st.spec.purpose == "goal_check"}


def _sinks(sched: Scheduler) -> list[str]:
    """Tasks nothing depends on: where the plan ends."""
    depended = {d for st in sched.status.values() for d in st.spec.depends_on}
    return [tid for tid in sched.status if tid not in depended and tid not in _checks(sched)]


def _upstream(sched: Scheduler, tids: list[str]) -> list[str]:
    """The tasks ``tids`` depend on, directly or not, in the order first reached."""
    seen: list[str] = []
    todo = [d for t in tids if t in sched.status for d in sched.status[t].spec.depends_on]
    while todo:
        tid = todo.pop(0)
        if tid not in seen and tid in sched.status:
            seen.append(tid)
            todo += sched.status[tid].spec.depends_on
    return seen


def _with_grounding(
    ledger: Ledger, sched: Scheduler | None, sources: list[str]
) -> dict[str, list[CheckVerdict]]:
    """The checks of each task, the answer's sources also carrying the grounding checks of
    the tasks they read from: an answer computed from a quote that is not in the documents
    is not verified, however well it was computed. A source whose answer rests on two views
    that never saw the reading (`roles.verifier.confidence.apart`: the table's arithmetic and
    a worked answer from the documents) carries none: on TAT-QA dev (1.5B) a wrong quote
    kept such an answer, right, from `succeeded`."""
    if sched is None:
        return ledger.checked
    checked = dict(ledger.checked)
    for tid in sources:
        if apart(ledger.confidence.get(tid)):
            continue
        upstream = [
            v.model_copy(update={"what": f"{up}: {v.what}"})
            for up in _upstream(sched, [tid])
            for v in ledger.checked.get(up, [])
            if v.kind == "grounding"
        ]
        if upstream:
            checked[tid] = [*checked.get(tid, []), *upstream]
    return checked


_ANSWERABLE = frozenset({"succeeded", "failed", "budget_exhausted"})
"""The ends after which a verified answer is looked for where the plan gave none it can
stand by (`_level_picked`, `_confirmed_instead`): a spent budget stops the plan's work, not
an answer already computed and confirmed (a live 1.5B quickstart, 45a960c, spent its 20
minutes on a plan whose programs failed, its goal check's two programs having agreed on the
right count, estimate and ratio in its first minutes). A person's stop is left as it is."""


def stated(goal: Goal) -> str:
    """The goal as the checks of the answer read it: its text and the values given with it
    (numbers an answer may repeat without having computed them: the quickstart's limit)."""
    values = json.dumps(goal.inputs, ensure_ascii=False) if goal.inputs else ""
    return f"{goal.text}\n{values}".strip()


def _given(value: JsonValue) -> bool:
    """Whether an output holds something (not None, "", {} or [])."""
    return value is not None and value != "" and value != {} and value != []


def given_to_answer(
    completed: dict[str, dict[str, JsonValue]], scheduler: Scheduler | None
) -> tuple[str | None, list[str]]:
    """The values computed upstream that the task giving the answer was given, one ``name:
    value`` line each, and the tasks that computed them: what the plan itself worked out,
    before its last task restated it. A live 1.5B plan computed 1229, 1085.74 and 1.1320, and
    its answer task wrote an estimate of 2500 beside them. Only a coder's outputs are
    computed: a reading's quotes and a researcher's statement say what the documents say (a
    live 1.5B quickstart at 74972e8 gave a count, an estimate and a difference, and the "1"
    of the researcher's "greater than 1" stood in for the goal check's ratio of 1.13)."""
    if scheduler is None:
        return None, []
    checks = _checks(scheduler)
    last = [st.spec for st in scheduler.status.values() if "answer" in st.spec.outputs]
    if len(last) != 1:
        return None, []
    lines, sources = [], []
    for name in last[0].inputs:
        if name in READING:
            continue
        tid = next((t for t, out in completed.items() if name in out and t not in checks), None)
        if tid is None or tid == last[0].id or not _given(completed[tid][name]):
            continue
        if tid in scheduler.status and scheduler.status[tid].spec.role != "coder":
            continue
        lines.append(f"{name}: {as_text(completed[tid][name])}")
        sources += [tid] if tid not in sources else []
    return ("\n".join(lines) if lines else None), sources


def final_answer(
    completed: dict[str, dict[str, JsonValue]], scheduler: Scheduler | None
) -> tuple[str | None, dict[str, JsonValue]]:
    """The answer for the person and every output of the completed tasks; see `synthesize`."""
    answer, _ = synthesize(completed, scheduler)
    outputs: dict[str, JsonValue] = {}
    for task_outputs in completed.values():
        outputs.update(task_outputs)
    return answer, outputs


def synthesize(
    completed: dict[str, dict[str, JsonValue]], scheduler: Scheduler | None
) -> tuple[str | None, list[str]]:
    """The answer written for the person, and the tasks it comes from: the output named
    ``answer``; else the values of the plan's last tasks, one ``name: value`` line each,
    quoted exactly as computed (no model retells them); None when nothing was produced.

    Deterministic on purpose: a small model asked to retell computed values misquotes them.
    """
    checks = _checks(scheduler)
    for tid, outputs in completed.items():
        if tid not in checks and "answer" in outputs and _given(outputs["answer"]):
            return as_text(outputs["answer"]), [tid]
    if scheduler is None:
        return None, []
    lines, sources = [], []
    for tid in _sinks(scheduler):
        values = {k: v for k, v in completed.get(tid, {}).items() if _given(v)}
        if values:
            sources.append(tid)
            lines += [f"{k}: {as_text(v)}" for k, v in values.items()]
    return ("\n".join(lines) if lines else None), sources


def final_summary(
    done: int, failed: int, scheduler: Scheduler | None, revision: int, budget: BudgetTracker
) -> str:
    """Tasks, plan revisions and spend in one line."""
    counts = scheduler.counts() if scheduler else {}
    spend = budget.spend
    return (
        f"{done} tasks done, {failed} failed, "
        f"{counts.get(TaskState.RUNNING, 0)} cancelled in flight; plan revision "
        f"{revision} ({spend.replans} replans); {spend.calls} model calls, "
        f"{spend.tokens:,} tokens, {spend.cost:.4f} {budget.settings.currency}, "
        f"{spend.sandbox_s:.1f} s sandbox, {budget.elapsed():.1f} s wall"
    )


def _confirmed_instead(
    ledger: Ledger,
    scheduler: Scheduler | None,
    answer: str | None,
    sources: list[str],
    goal_check: GoalCheck,
    checker: str,
) -> tuple[str, list[str], Verdict] | None:
    """Where the plan's answer is not verified (or there is none), a verified one instead:
    the values the plan computed for its last task, when the goal check confirms them all
    (its last task misstated them); else the goal check's own answer, when a second program
    gave it too (`roles.verifier.goal_check.standing`), verified where the plan gave no
    answer or one no second program of its ``sources`` gave (against a confirmed one, it is
    given unverified). None: neither holds."""
    goal, independent = goal_check.goal, goal_check.independent
    given, upstream = given_to_answer(ledger.completed, scheduler)
    if given is not None and covers(given, independent, goal):
        checked = _with_grounding(ledger, scheduler, upstream)
        if (held := verdict_of(given, upstream, checked, goal_check)).verified:
            return given, upstream, held
    # two programs answering the goal as stated stand against the plan's one
    backed = any(
        v.kind == "agreement" and v.passed for tid in sources for v in ledger.checked.get(tid, [])
    )
    stood = standing(answer, independent, goal_check.shown, goal, backed=backed)
    if stood is None:
        return None
    verdict = Verdict(
        verified=stood.passed, checks=[stood.what], evidence=stood.evidence, verdicts=[stood]
    )
    return as_text(independent), [checker], verdict


@dataclass(frozen=True)
class _Picked:
    """A level candidate picked by the goal check: the run's answer, verdict, outputs and
    artifacts with it, and how sure its task is of it."""

    answer: str
    verdict: Verdict
    outputs: dict[str, JsonValue]
    artifacts: list[Artifact]
    confidence: dict[str, Confidence]


def _level_picked(
    ledger: Ledger,
    scheduler: Scheduler | None,
    sources: list[str],
    goal_check: GoalCheck,
) -> _Picked | None:
    """Where the answer is not verified, the first candidate a source task found level with
    the one it kept (`bus.verdicts.Level`: no group of values was ahead) that the goal check
    agrees with and that is then verified on its own verdicts, its files in place of the kept
    one's. None: no such candidate."""
    checked = _with_grounding(ledger, scheduler, sources)
    for tid in sources:
        upstream = [v for v in checked.get(tid, []) if v.kind == "grounding"]
        for level in ledger.level.get(tid, []):
            completed = {**ledger.completed, tid: dict(level.outputs)}
            answer, _ = synthesize(completed, scheduler)
            own = {**checked, tid: [*level.verdicts, *upstream]}
            held = verdict_of(answer, sources, own, goal_check)
            if answer is None or not held.verified:
                continue
            why = (
                f"{tid}: its candidates tied, and the goal check agrees with another than the "
                "one it kept, so that one's values are the answer"
            )
            _, outputs = final_answer(completed, scheduler)
            kept = f"artifacts/{tid}/"
            artifacts = [a for a in ledger.artifacts if not a.path.startswith(kept)]
            sure = {t: c for t, c in ledger.confidence.items() if t != tid}
            if level.confidence is not None:
                sure[tid] = level.confidence
            verdict = held.model_copy(update={"checks": [*held.checks, why]})
            return _Picked(answer, verdict, outputs, [*artifacts, *level.artifacts], sure)
    return None


def final_message(
    status: str,
    reason: str,
    ledger: Ledger,
    scheduler: Scheduler | None,
    revision: int,
    budget: BudgetTracker,
    goal: str = "",
) -> Final:
    """The run's final message: the answer, every output and artifact, the summary line."""
    answer, outputs = final_answer(ledger.completed, scheduler)
    _, sources = synthesize(ledger.completed, scheduler)
    goal_check, checker = None, max(_checks(scheduler), default="")
    if not checker and GOAL_CHECK in ledger.completed:  # done under an earlier plan
        checker = GOAL_CHECK
    if checker:
        independent = ledger.completed.get(checker, {}).get(OUTPUT)
        tied = [level.outputs.get(OUTPUT) for level in ledger.level.get(checker, [])]
        goal_check = GoalCheck(goal, independent, ledger.checked.get(checker, []), tied)
    verdict = verdict_of(answer, sources, _with_grounding(ledger, scheduler, sources), goal_check)
    artifacts, confidence = ledger.artifacts, ledger.confidence
    if not verdict.verified and status in _ANSWERABLE and goal_check is not None:
        if picked := _level_picked(ledger, scheduler, sources, goal_check):
            answer, verdict, outputs = picked.answer, picked.verdict, picked.outputs
            artifacts, confidence = picked.artifacts, picked.confidence
            status, reason = "succeeded", ""
        elif instead := _confirmed_instead(ledger, scheduler, answer, sources, goal_check, checker):
            (answer, sources, verdict), status, reason = instead, "succeeded", ""
    sure = [confidence[t] for t in sources if t in confidence]
    if sure:  # the answer is as sure as its least sure source
        verdict = verdict.model_copy(update={"confidence": min(sure, key=lambda c: c.score)})
    if status == "succeeded" and not verdict.verified:  # success is checked, not declared
        status = "unverified" if answer else "failed"
        reason = reason or unverified_reason(verdict)
    done, failed = len(ledger.completed), len(ledger.failed)
    return Final(
        status=status,  # type: ignore[arg-type]
        answer=answer,
        outputs=outputs,
        artifacts=artifacts,
        summary=final_summary(done, failed, scheduler, revision, budget),
        reason=reason,
        verdict=verdict,
    )
