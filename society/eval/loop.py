"""The ``loop`` baseline: one model that checks its own program and tries again — the twenty
lines of code a society must beat (FINDINGS: 128/164 on HumanEval against 115 for one call).

Per case: ask for a program (the ``program`` arm's request: an eval with both asks it once,
`society.eval.calls`); run it in the sandbox against the checks the case itself states,
never the grader's hidden ones — for a function case the examples in its docstring
(`roles.examples`; none usable: answered once), for a text case its visible ``checks``
plus: it ran, exited 0 and printed something. On failure, up to ``repairs`` calls that show
the failure; then up to ``samples`` fresh programs at ``temperature``, seeded from the
answer's seed (``--seed``, per repeat); keep the first program that passes, else the last.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass

from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import JsonValue

from roles.examples import check_program, examples_in
from roles.structured import AnswerInvalid, extract_code
from society.eval.baselines import prompt_of, submission_of
from society.eval.calls import ask, documents_of, model_of
from society.eval.context import Answered, CaseContext
from society.eval.graders import Submission, grade_all
from society.eval.suite import Case

__all__ = ["loop"]


@dataclass
class _Try:
    code: str
    answer: str
    outputs: dict[str, JsonValue]
    passed: bool
    failure: str


async def _attempt(case: Case, code: str, cx: CaseContext) -> _Try:
    """Run ``code`` and its visible checks."""
    if case.answer == "code":
        prompt = str(case.inputs.get("function", ""))
        entry = str(case.inputs.get("entry_point", ""))
        examples = examples_in(prompt, entry) if entry else []
        if not examples:
            return _Try(code, code, {}, True, "")
        run = await cx.eval.code.execute(check_program(prompt, code, entry, examples))
        if run.ok:
            return _Try(code, code, {}, True, "")
        lines = [ln for ln in (run.stderr or run.error or "").strip().splitlines() if ln.strip()]
        why = lines[-1] if lines else f"exit code {run.exit_code}"
        return _Try(code, code, {}, False, f"a docstring example failed: {why}")
    run = await cx.eval.code.execute(code, documents_of(cx.suite, case))
    got = submission_of(run)
    answer, outputs = got.answer, dict(got.outputs)
    if not run.ok:
        tail = "\n".join((run.stderr or run.error or "").strip().splitlines()[-8:])
        why = "it timed out" if run.timed_out else f"it exited with code {run.exit_code}"
        return _Try(code, answer, outputs, False, f"{why}:\n{tail}")
    if not answer:
        return _Try(code, answer, outputs, False, "it printed nothing: print the answer")
    if case.checks:
        sub = Submission(answer, outputs)
        grades = await grade_all(case.checks, sub, case.inputs, cx.eval.code)
        failed = [g.detail for g in grades if not g.passed]
        if failed:
            return _Try(code, answer, outputs, False, "a check failed: " + "; ".join(failed))
    return _Try(code, answer, outputs, True, "")


async def loop(case: Case, cx: CaseContext) -> Answered:
    """Answer ``case`` with the loop; the answer is the kept program's (or its code)."""
    folder = cx.folder(case.id)
    settings = cx.eval.loop
    started = time.monotonic()
    access = model_of(case, cx)
    log = folder / "calls.jsonl"
    calls = tin = tout = 0
    cost = reused = 0.0
    last: _Try | None = None
    base = prompt_of(cx.suite, case, "program", cx.eval.libraries)

    async def asked(messages: list[LLMMessage], sample: int | None) -> str:
        nonlocal calls, tin, tout, cost, reused
        use = access
        if sample is not None:  # a fresh sample: the loop's temperature, its own seed
            extra = {**access.extra, "temperature": settings.temperature}
            extra["seed"] = cx.seed + sample
            use = dataclasses.replace(access, extra=extra)
        reply = await ask(use, messages, case, cx, log)
        calls, tin, tout, cost = (
            calls + 1,
            tin + reply.tokens_in,
            tout + reply.tokens_out,
            cost + reply.cost,
        )
        if reply.arm != cx.arm:
            reused += reply.wall_s
        return reply.text

    async def judged(text: str) -> _Try:
        try:
            code = extract_code(text)
        except AnswerInvalid as exc:
            return _Try("", "", {}, False, str(exc))
        return await _attempt(case, code, cx)

    stages = ["first"]
    try:
        last = await judged(await asked(base, None))
        for _ in range(settings.repairs):
            if last.passed:
                break
            stages.append("repair")
            shown = [
                *base,
                AssistantMessage(content=f"```python\n{last.code}```", source="assistant"),
                UserMessage(
                    content=f"The program failed: {last.failure}\nFix it and reply with the "
                    "whole corrected program in one ```python block.",
                    source="user",
                ),
            ]
            last = await judged(await asked(shown, None))
        for sample in range(settings.samples):
            if last.passed:
                break
            stages.append("sample")
            last = await judged(await asked(base, sample))
    except Exception as exc:  # the model failed (after its retries)
        reason = f"the model call failed: {type(exc).__name__}: {exc}"
        sub = Submission(last.answer, dict(last.outputs)) if last else Submission("")
        wall = _since(started) + reused
        return Answered(sub, "crashed", reason, calls, tin, tout, cost, wall, folder=folder)
    (folder / "program.py").write_text(last.code)
    (folder / "stages.json").write_text(
        json.dumps({"stages": stages, "passed_checks": last.passed})
    )
    status = "succeeded" if last.passed else "failed"
    reason = "" if last.passed else last.failure[:300]
    sub = Submission(last.answer, dict(last.outputs))
    wall = round(_since(started) + reused, 3)
    return Answered(sub, status, reason, calls, tin, tout, cost, wall, folder=folder)


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
