"""The coder's solve loop, apart from the bus: ask for a program, run it, check it
(`roles.coder.checks`), show the first problem back, and keep the first program that holds
— at most ``max_attempts`` programs. A fix that gives back a program already run is not run
again: the task is asked afresh once, with the failure (a repeat after that runs, so the
critic sees the loop).

The model and the sandbox come in as two callables, so the loop is tested on a fake code
runner with scripted replies; the role passes ones that record every call and run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import JsonValue

from roles.coder.checks import CHECKS, Attempt, Check, read_outputs
from roles.coder.votes import Solved
from roles.errors import TaskFailed
from roles.execution import ExecutionResult
from roles.program import files_for, unwrapped, wrapped
from roles.structured import AnswerInvalid, code_from
from sandbox.manifest import Manifest

__all__ = ["Ask", "Execute", "Program", "afresh", "feedback", "solve"]

Ask = Callable[[list[LLMMessage]], Awaitable[str]]
"""The model: the conversation so far -> its reply."""
Execute = Callable[[str, dict[str, bytes]], Awaitable[tuple[ExecutionResult, str]]]
"""The sandbox: (code, files) -> the run and the id of its logged result."""


@dataclass(frozen=True)
class Program:
    """What the loop is asked for: the outputs, the inputs the program finds as
    ``inputs.json``, and what checks it."""

    outputs: list[str]
    inputs: Mapping[str, JsonValue] = field(default_factory=dict)
    quoted: frozenset[float] = frozenset()
    libraries: Manifest | None = None
    checks: tuple[Check, ...] = CHECKS
    documents: Mapping[str, str] = field(default_factory=dict)
    """The goal's documents (file name -> text), beside the program as files."""


def afresh(request: str, problem: str) -> str:
    """The task asked again, without the conversation that kept giving one program."""
    return (
        f"{request}\n\nAn earlier program for this task failed, and fixing it gave the same "
        f"program again: {problem[:600]}\nWrite a new program, another way, from the start."
    )


def feedback(problem: str) -> UserMessage:
    """A problem shown back to the model."""
    return UserMessage(
        content=f"That did not work: {problem}\nFix the program and answer with the whole corrected program.",
        source="sandbox",
    )


async def solve(
    convo: list[LLMMessage],
    program: Program,
    ask: Ask,
    execute: Execute,
    max_attempts: int,
    prepare: Callable[[str], str] = lambda code: code,
    on_failure: Callable[[int, str], None] = lambda attempt, problem: None,
) -> Solved:
    """One program that runs and passes every check, fixed from its problems (bounded);
    ``prepare`` edits a program before it runs (missing imports), ``on_failure`` hears of
    each failed attempt. Raises `TaskFailed` with the last problem."""
    files = files_for(program.inputs, program.documents, program.outputs)
    problem = ""
    ran: set[str] = set()
    asked_afresh = False
    first_note = convo[-1].content if isinstance(convo[-1].content, str) else ""
    for attempt in range(1, max_attempts + 1):
        # code as a fenced block, never JSON: small models mangle code escaped in JSON
        reply = await ask(convo)
        convo.append(AssistantMessage(content=reply, source="coder"))
        try:
            code = prepare(code_from(reply))
        except AnswerInvalid as exc:
            problem = str(exc)
            convo.append(feedback(problem))
            continue
        if code.strip() in ran and not asked_afresh:  # it would fail the same way
            asked_afresh = True
            on_failure(attempt, "same program again")
            convo = [convo[0], UserMessage(content=afresh(first_note, problem), source="manager")]
            continue
        ran.add(code.strip())
        run, exec_id = await execute(wrapped(code), files)
        run = unwrapped(run)
        tried = Attempt(
            code, run, program.outputs, program.inputs, program.quoted, program.libraries
        )
        problem = next((p for p in (check(tried) for check in program.checks) if p), "")
        if not problem:
            return Solved(
                read_outputs(program.outputs, run), dict(run.files), exec_id, attempt, code
            )
        on_failure(attempt, problem)
        convo.append(feedback(problem))
    msg = f"code still failing after {max_attempts} attempts: {problem}"
    raise TaskFailed(msg)
