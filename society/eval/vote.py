"""The ``vote`` baseline: self-consistency (Wang et al., 2023) over programs — the plain way to
buy accuracy with calls, which a society's agreement of views must beat at the same cost.

Per case: ``samples`` programs asked with the ``program`` arm's request at ``temperature``,
each seeded (``--seed`` + its index, per repeat) so a re-run draws the same; each run once in
the sandbox. The answers of the programs that ran are grouped by value (numbers within the
precision stated, names, dates: `roles.verifier.agreement.agree`, the goal's own numbers left
out) and the largest group's first answer is given; its share of the samples is the
confidence. For a case whose answer is code, the group is the drafts that pass the examples
in its docstring (the only check a case states), the first of them given.
"""

from __future__ import annotations

import dataclasses
import json
import time

from bus.verdicts import Drawn
from roles.examples import check_program, examples_in
from roles.structured import AnswerInvalid, extract_code
from roles.verifier.agreement import agree, quoted_in
from society.eval.baselines import prompt_of, submission_of, why_failed
from society.eval.calls import ask, documents_of, model_of
from society.eval.context import Answered, CaseContext
from society.eval.graders import Submission
from society.eval.suite import Case

__all__ = ["vote"]


async def vote(case: Case, cx: CaseContext) -> Answered:
    """Answer ``case`` by the majority of sampled programs."""
    folder = cx.folder(case.id)
    settings = cx.eval.vote
    started = time.monotonic()
    access = model_of(case, cx)
    base = prompt_of(cx.suite, case, "program", cx.eval.libraries)
    calls = tin = tout = 0
    cost = reused = 0.0
    ran: list[Submission] = []  # the answers of the programs that held
    samples: list[dict[str, object]] = []
    for i in range(settings.samples):
        extra = {**access.extra, "temperature": settings.temperature, "seed": cx.seed + i}
        try:
            reply = await ask(
                dataclasses.replace(access, extra=extra), base, case, cx, folder / "calls.jsonl"
            )
        except Exception as exc:  # the model failed (after its retries): vote on what came
            samples.append({"sample": i, "failed": f"the model call failed: {exc}"[:300]})
            break
        calls, tin, tout, cost = (
            calls + 1,
            tin + reply.tokens_in,
            tout + reply.tokens_out,
            cost + reply.cost,
        )
        reused += reply.wall_s if reply.arm != cx.arm else 0.0
        held, why = await _held(case, reply.text, cx)
        samples.append({"sample": i, "seed": cx.seed + i, "answer": held.answer[:500], "why": why})
        if not why:
            ran.append(held)
    groups = _groups(case, ran)
    (folder / "votes.json").write_text(
        json.dumps({"samples": samples, "groups": [len(g) for g in groups]}, indent=2)
    )
    wall = round(time.monotonic() - started + reused, 3)

    def answered(sub: Submission, status: str, reason: str, share: float) -> Answered:
        others = [
            Drawn(value=g[0].answer[:1000], views=["program"] * len(g))
            for g in groups
            if g[0] is not sub
        ]
        won = next((len(g) for g in groups if g[0] is sub), 0)
        done = Answered(sub, status, reason, calls, tin, tout, cost, wall, folder=folder)
        return dataclasses.replace(done, confidence=share, views=["program"] * won, others=others)

    if not groups:
        why = next((str(s["why"]) for s in reversed(samples) if s.get("why")), "no sample ran")
        return answered(Submission(""), "failed", why, 0.0)
    best = max(groups, key=len)
    return answered(best[0], "succeeded", "", len(best) / max(1, settings.samples))


async def _held(case: Case, text: str, cx: CaseContext) -> tuple[Submission, str]:
    """A sample's answer, and why it does not count ("" when it does)."""
    try:
        code = extract_code(text)
    except AnswerInvalid as exc:
        return Submission(""), str(exc)
    if case.answer == "code":
        prompt = str(case.inputs.get("function", ""))
        entry = str(case.inputs.get("entry_point", ""))
        examples = examples_in(prompt, entry) if entry else []
        if examples:
            run = await cx.eval.code.execute(check_program(prompt, code, entry, examples))
            if not run.ok:
                return Submission(code), "a docstring example failed"
        return Submission(code), ""
    run = await cx.eval.code.execute(code, documents_of(cx.suite, case))
    sub = submission_of(run)
    if not run.ok or not sub.answer:
        return sub, run.error or why_failed(run)
    return sub, ""


def _groups(case: Case, answers: list[Submission]) -> list[list[Submission]]:
    """The answers grouped by value, in the order each group's first was drawn (code: one
    group, the drafts that passed the examples)."""
    if case.answer == "code":
        return [answers] if answers else []
    quoted = quoted_in(case.goal) | quoted_in(json.dumps(case.inputs, default=str))
    groups: list[list[Submission]] = []
    for sub in answers:
        home = next((g for g in groups if agree(g[0].answer, sub.answer, quoted)), None)
        if home is None:
            groups.append([sub])
        else:
            home.append(sub)
    return groups
