"""The baselines: the same model without the society, so a case says whether the society
was worth its calls.

- ``direct``: one chat call with the goal, inputs and documents; the reply is the answer.
- ``program``: one call asking for a Python program, run once in the eval's sandbox with
  the inputs as ``inputs.json`` and the documents beside it; what it prints is the answer,
  what it writes to ``outputs.json`` its outputs. For a case whose answer is code (HumanEval)
  the code is the answer.

Both call the model through the same `ModelAccess` as the roles (same client, retries,
limits, structured mode), and each call's request, reply and usage go to ``calls.jsonl``
in the case's folder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from roles.model_access import ModelAccess
from roles.structured import AnswerInvalid, extract_code
from sandbox.manifest import Manifest
from society.eval.arms import Answered, Draft, EvalContext
from society.eval.graders import Submission
from society.eval.suite import Case, Suite
from society.models.factory import ModelFactory

__all__ = ["DIRECT_SYSTEM", "PROGRAM_SYSTEM", "first_program", "run_baseline"]

DIRECT_SYSTEM = (
    "You are a careful assistant. Answer the user's question. Work it out, then state the "
    "final answer plainly, with every value the question asks for."
)
PROGRAM_SYSTEM = (
    "You write one complete Python 3 program that computes the answer to the user's task. "
    "The task's inputs are in the file inputs.json (a JSON object) in the working directory, "
    "and any documents named in the task are files there too. The program must run as it "
    "is (no input() and no command-line arguments) and print the answer, with every value "
    "the task asks for, to standard output. Reply with the program in one ```python block."
)
CODE_SYSTEM = (
    "You are an expert Python programmer. Complete the function the user gives. Reply with "
    "the complete function (its signature, docstring optional, and body) and any imports it "
    "needs, in one ```python block."
)


def _documents(suite: Suite, case: Case) -> dict[str, bytes]:
    return {Path(d).name: (suite.base_dir / d).read_bytes() for d in case.documents}


def prompt_of(
    suite: Suite,
    case: Case,
    arm: Literal["direct", "program"],
    libraries: Manifest | None = None,
) -> list[LLMMessage]:
    """The messages a baseline sends for ``case`` (the graders' answers never appear); a
    program is told what the sandbox holds, as the society's coder is."""
    if case.answer == "code":
        return [SystemMessage(content=CODE_SYSTEM), UserMessage(content=case.goal, source="user")]
    parts = [case.goal]
    if case.inputs:
        where = " (also in inputs.json)" if arm == "program" else ""
        parts.append(f"Inputs{where}:\n{json.dumps(case.inputs, indent=2)}")
    for name, data in _documents(suite, case).items():
        if arm == "program":
            parts.append(f"Document {name} (a file in the working directory):")
        else:
            parts.append(f"Document {name}:")
        parts.append(data.decode("utf-8", "replace"))
    system = DIRECT_SYSTEM if arm == "direct" else PROGRAM_SYSTEM
    if arm == "program" and libraries is not None:
        system += f" The sandbox has {libraries.described()}; nothing else can be installed."
    return [SystemMessage(content=system), UserMessage(content="\n\n".join(parts), source="user")]


def _factory(suite: Suite, case: Case, ctx: EvalContext) -> tuple[ModelFactory, str]:
    """The models the baselines call (the coder's model, or ``--model``'s)."""
    models = dict(suite.defaults.models)
    if ctx.override is not None:
        models = dict.fromkeys(models, ctx.override)
    return ModelFactory(models, case.script), suite.defaults.roles.coder.model


async def _call(
    access: ModelAccess, messages: list[LLMMessage], log: Path
) -> tuple[str, int, int, float]:
    started = time.monotonic()
    reply = await access.call(messages)
    record = {
        "request": access.request(messages),
        "answer": reply.text,
        "tokens_in": reply.tokens_in,
        "tokens_out": reply.tokens_out,
        "latency_s": round(reply.latency_s, 3),
        "wall_s": round(time.monotonic() - started, 3),
    }
    with log.open("a") as f:
        f.write(json.dumps(record, default=str) + "\n")
    return (
        reply.text,
        reply.tokens_in,
        reply.tokens_out,
        access.cost(reply.tokens_in, reply.tokens_out),
    )


async def first_program(
    case: Case,
    repeat: int,
    arm: str,
    access: ModelAccess,
    messages: list[LLMMessage],
    log: Path,
    ctx: EvalContext,
) -> Draft:
    """The reply to the ``program`` prompt for this case and repeat. The ``program`` and
    ``loop`` arms send the same first request, so an eval with both asks it once and each
    arm counts the call as its own (its tokens, cost and time); a case scripted per arm
    (``script.loop``) answers each arm from its own script."""
    request = access.request(messages)
    key = json.dumps([case.id, repeat, request], sort_keys=True, default=str)
    shared = "loop" not in case.script
    if shared and key in ctx.drafts:
        draft = ctx.drafts[key]
        record = {
            "request": request,
            "answer": draft.text,
            "tokens_in": draft.tokens_in,
            "tokens_out": draft.tokens_out,
            "reused_from": draft.arm,
        }
        with log.open("a") as f:
            f.write(json.dumps(record, default=str) + "\n")
        return draft
    started = time.monotonic()
    text, tin, tout, cost = await _call(access, messages, log)
    draft = Draft(text, tin, tout, cost, _since(started), arm)
    if shared:
        ctx.drafts[key] = draft
    return draft


async def run_baseline(
    suite: Suite,
    case: Case,
    arm: Literal["direct", "program"],
    folder: Path,
    ctx: EvalContext,
    repeat: int = 0,
) -> Answered:
    """Answer ``case`` with one call (``direct``) or one program run once (``program``)."""
    _make(folder)
    factory, model = _factory(suite, case, ctx)
    started = time.monotonic()
    messages = prompt_of(suite, case, arm, ctx.libraries)
    log = folder / "calls.jsonl"
    reused = 0.0
    try:
        access = factory.build(model, arm)
        if arm == "program":
            draft = await first_program(case, repeat, arm, access, messages, log, ctx)
            text, tin, tout, cost = draft.text, draft.tokens_in, draft.tokens_out, draft.cost
            reused = draft.wall_s if draft.arm != arm else 0.0
        else:
            text, tin, tout, cost = await _call(access, messages, log)
    except Exception as exc:  # the model failed (after its retries): this case's answer
        reason = f"the model call failed: {type(exc).__name__}: {exc}"
        return Answered(Submission(""), "crashed", reason, wall_s=_since(started), folder=folder)

    def answered(sub: Submission, status: str, reason: str = "") -> Answered:
        return Answered(
            sub,
            status,
            reason,
            calls=1,
            tokens_in=tin,
            tokens_out=tout,
            cost=cost,
            wall_s=round(_since(started) + reused, 3),
            folder=folder,
        )

    if arm == "direct":
        return answered(Submission(text), "succeeded" if text.strip() else "failed")
    try:
        code = extract_code(text)
    except AnswerInvalid as exc:
        return answered(Submission(""), "failed", str(exc))
    (folder / "program.py").write_text(code)
    if case.answer == "code":
        return answered(Submission(code), "succeeded")
    files = {"inputs.json": json.dumps(case.inputs).encode(), **_documents(suite, case)}
    run = await ctx.code.execute(code, files)
    (folder / "run.json").write_text(
        json.dumps(
            {
                "exit_code": run.exit_code,
                "stdout": run.stdout,
                "stderr": run.stderr,
                "timed_out": run.timed_out,
                "error": run.error,
                "files": sorted(run.files),
            },
            indent=2,
        )
    )
    outputs: dict[str, JsonValue] = {}
    if "outputs.json" in run.files:
        try:
            loaded = json.loads(run.files["outputs.json"])
            outputs = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            outputs = {}
    artifacts = {n: b for n, b in run.files.items() if n != "outputs.json"}
    answer = run.stdout.strip()
    if run.ok and answer:
        status, reason = "succeeded", ""
    else:
        status = "failed"
        reason = run.error or _why(run.exit_code, run.timed_out, run.stderr)
    return answered(Submission(answer, outputs, artifacts), status, reason)


def _make(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)


def _why(exit_code: int | None, timed_out: bool, stderr: str) -> str:
    if timed_out:
        return "the program timed out"
    if exit_code == 0:
        return "the program printed nothing"
    last = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    return f"exit code {exit_code}: {last[-1][:200] if last else 'no error output'}"


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
