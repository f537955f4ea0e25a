"""The coder's "function" strategy bound to the role: a task whose answer is a function is
answered by drafts run against its docstring's examples and, with checks on, chosen by the
verifier's tests (`roles.coder.function_writer` holds the drafting itself). Apart from
`roles.coder.role` so that the role holds what every strategy shares."""

from __future__ import annotations

from typing import Any, Protocol

from autogen_core.models import LLMMessage, SystemMessage, UserMessage

from bus import Envelope
from bus.payloads import TaskAssignment, TaskResult
from bus.verdicts import CheckVerdict
from roles.calls import ModelCalls
from roles.coder import function_writer
from roles.coder.votes import Solved
from roles.conversation import Conversation
from roles.examples import Example, examples_in
from roles.execution import ExecutionResult
from roles.settings import CoderSettings, VerifierSettings
from roles.verifier import function_tests

__all__ = ["Drafting", "by_drafts"]


class Drafting(Protocol):
    """What the strategy uses of the coder."""

    calls: ModelCalls
    judge: ModelCalls
    settings: CoderSettings
    verifier: VerifierSettings
    talk: Conversation
    log: Any

    def system_prompt(self, base: str) -> SystemMessage: ...

    def with_libraries(self, system: str) -> str: ...

    def imported(self, code: str) -> str: ...

    async def execute(
        self, env: Envelope, task_id: str, code: str, files: dict[str, bytes]
    ) -> tuple[ExecutionResult, str]: ...

    def done(
        self,
        assignment: TaskAssignment,
        solved: Solved,
        note: str = "",
        verdicts: list[CheckVerdict] | None = None,
    ) -> TaskResult: ...


async def by_drafts(coder: Drafting, env: Envelope, assignment: TaskAssignment) -> TaskResult:
    """The answer is a function: drafts run against its docstring's examples and, when
    checks are on, chosen by the verifier's tests (`roles.coder.function_writer`)."""
    task, deliverable = assignment.task, assignment.deliverable
    assert deliverable is not None  # the "function" strategy's condition
    examples = examples_in(deliverable.stub, deliverable.function)
    system = coder.system_prompt(coder.with_libraries(function_writer.SYSTEM))
    notes = assignment.notes + coder.talk.take_remarks()
    request = function_writer.function_request(deliverable, notes, None)

    async def ask(messages: list[LLMMessage]) -> str:
        return (await coder.calls.call(messages, parent=env, task_id=task.id)).text

    async def run(code: str) -> tuple[ExecutionResult, str]:
        return await coder.execute(env, task.id, code, {})

    async def tests() -> list[Example]:
        messages: list[LLMMessage] = [
            SystemMessage(content=function_tests.SYSTEM),
            UserMessage(content=function_tests.request(deliverable, examples), source="coder"),
        ]
        reply = await coder.judge.call(messages, parent=env, task_id=task.id)
        found = function_tests.tests_in(reply.text, deliverable.function, examples)
        coder.log.info("verifier tests", task=task.id, tests=len(found))
        return found

    checked = bool(coder.settings.cross_check and coder.verifier.function_tests)
    written = await function_writer.write(
        deliverable,
        examples,
        [system, UserMessage(content=request, source="manager")],
        ask,
        run,
        coder.imported,
        attempts=coder.settings.max_attempts,
        fresh=coder.settings.fresh_drafts,
        tests=tests if checked else None,
        most=coder.settings.function_candidates,
    )
    solved = Solved(
        {"answer": written.code},
        {"solution.py": written.code.encode()},
        written.exec_id,
        written.tries,
    )
    return coder.done(assignment, solved, note=written.note, verdicts=written.verdicts)
