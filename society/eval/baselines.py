"""The baselines: the same model without the society, asked the way a person who wants the
answer would ask it — not in the society's conventions.

- ``direct``: one chat call with the goal, the given values and the documents' text; it
  works the question out and ends with ``Answer: …``, which is what is graded.
- ``program``: one call asking for a Python program that defines the given values itself
  (they are written in the task as Python assignments; no file is mentioned), run once in
  the eval's sandbox; what it prints is the answer, what it writes to ``outputs.json`` its
  outputs. Documents are given as their text, and the program writes the values it needs
  from them into itself, as Program-of-Thoughts asks: told the documents were also files, a
  1.5B model parsed the markdown and crashed (TAT-QA dev, 24 drawn: 0/24, this way 6/24;
  on the dev suite's 23 policy documents it pastes rules as code, 4/23 before, 0/23 now).
  For a case whose answer is code (HumanEval) the code is the answer.

Both call the model through the roles' `ModelAccess` (`society.eval.calls.ask`): same
client, retries and limits, each call in the answer folder's ``calls.jsonl``.
"""

from __future__ import annotations

import json
import time
from typing import Literal

from autogen_core.models import LLMMessage, SystemMessage, UserMessage
from pydantic import JsonValue

from roles.structured import AnswerInvalid, extract_code
from roles.verifier.values import final_answer
from sandbox.manifest import Manifest
from sandbox.result import ExecutionResult
from society.eval.calls import ask, documents_of, model_of
from society.eval.context import Answered, CaseContext
from society.eval.graders import Submission
from society.eval.suite import Case, Suite

__all__ = [
    "CODE_SYSTEM",
    "DIRECT_SYSTEM",
    "PROGRAM_SYSTEM",
    "direct",
    "final_answer",
    "program",
    "prompt_of",
    "submission_of",
]

DIRECT_SYSTEM = (
    "You are a careful assistant. Work the user's question out step by step. Then give the "
    "final answer on the last line, starting with 'Answer:', with every value the question "
    "asks for."
)
PROGRAM_SYSTEM = (
    "You write one complete Python 3 program that computes the answer to the user's task and "
    "prints it. The program must run as it is: no input() and no command-line arguments; "
    "values the task gives are written into the program. "
    "Compute every value; do not work anything out by hand. "
    "Print only the answer, with every value the task asks for (a short sentence or "
    "'name: value' lines). Reply with the program in one ```python block."
)
CODE_SYSTEM = (
    "You are an expert Python programmer. Complete the function the user gives. Reply with "
    "the complete function (its signature, docstring optional, and body) and any imports it "
    "needs, in one ```python block."
)


def _assignment(name: str, value: JsonValue) -> str:
    """A given value as the Python line that defines it."""
    if isinstance(value, str) and "\n" in value:
        return f'{name} = """\\\n{value.rstrip()}\n"""'
    return f"{name} = {value!r}"


def prompt_of(
    suite: Suite,
    case: Case,
    arm: Literal["direct", "program"],
    libraries: Manifest | None = None,
) -> list[LLMMessage]:
    """The messages a baseline sends for ``case`` (the graders and the key never appear)."""
    if case.answer == "code":
        return [SystemMessage(content=CODE_SYSTEM), UserMessage(content=case.goal, source="user")]
    parts = [case.goal]
    if case.inputs:
        if arm == "program":
            lines = "\n".join(_assignment(k, v) for k, v in case.inputs.items())
            parts.append(
                "The given values. Nothing defines them for you: your program must begin with "
                f"these lines, copied as they are:\n```python\n{lines}\n```"
            )
        else:
            parts.append(f"The given values:\n{json.dumps(case.inputs, indent=2)}")
    documents = documents_of(suite, case)
    for name, data in documents.items():
        parts.append(f"Document {name}:\n{data.decode('utf-8', 'replace')}")
    if documents and arm == "program":
        parts.append(
            "Your program reads no file: write the values it needs from the documents into it "
            "as Python assignments, then compute the answer from them."
        )
    system = DIRECT_SYSTEM if arm == "direct" else PROGRAM_SYSTEM
    if arm == "program" and libraries is not None:
        system += f" Python has {libraries.described()}; nothing else can be installed."
    return [SystemMessage(content=system), UserMessage(content="\n\n".join(parts), source="user")]


def submission_of(run: ExecutionResult) -> Submission:
    """A program's answer: what it printed, its ``outputs.json`` and the files it wrote."""
    outputs: dict[str, JsonValue] = {}
    if "outputs.json" in run.files:
        try:
            loaded = json.loads(run.files["outputs.json"])
            outputs = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            outputs = {}
    artifacts = {n: b for n, b in run.files.items() if n != "outputs.json"}
    return Submission(run.stdout.strip(), outputs, artifacts)


async def direct(case: Case, cx: CaseContext) -> Answered:
    """One call; its final answer line is the answer."""
    return await _baseline(case, cx, "direct")


async def program(case: Case, cx: CaseContext) -> Answered:
    """One program, run once."""
    return await _baseline(case, cx, "program")


async def _baseline(case: Case, cx: CaseContext, arm: Literal["direct", "program"]) -> Answered:
    folder = cx.folder(case.id)
    started = time.monotonic()
    messages = prompt_of(cx.suite, case, arm, cx.eval.libraries)
    try:
        reply = await ask(model_of(case, cx), messages, case, cx, folder / "calls.jsonl")
    except Exception as exc:  # the model failed (after its retries): this case's answer
        reason = f"the model call failed: {type(exc).__name__}: {exc}"
        return Answered(Submission(""), "crashed", reason, wall_s=_since(started), folder=folder)
    reused = reply.wall_s if reply.arm != cx.arm else 0.0

    def answered(sub: Submission, status: str, reason: str = "") -> Answered:
        return Answered(
            sub,
            status,
            reason,
            calls=1,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost=reply.cost,
            wall_s=round(_since(started) + reused, 3),
            folder=folder,
        )

    if arm == "direct":
        answer = final_answer(reply.text)
        return answered(Submission(answer), "succeeded" if answer else "failed")
    try:
        code = extract_code(reply.text)
    except AnswerInvalid as exc:
        return answered(Submission(""), "failed", str(exc))
    (folder / "program.py").write_text(code)
    if case.answer == "code":
        return answered(Submission(code), "succeeded")
    run = await cx.eval.code.execute(code, documents_of(cx.suite, case))
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
    sub = submission_of(run)
    if run.ok and sub.answer:
        return answered(sub, "succeeded")
    return answered(sub, "failed", run.error or why_failed(run))


def why_failed(run: ExecutionResult) -> str:
    """A failed run in one line."""
    if run.timed_out:
        return "the program timed out"
    if run.exit_code == 0:
        return "the program printed nothing"
    last = [ln for ln in run.stderr.strip().splitlines() if ln.strip()]
    return f"exit code {run.exit_code}: {last[-1][:200] if last else 'no error output'}"


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
