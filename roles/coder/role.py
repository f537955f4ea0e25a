"""The coder: asks its model for Python, runs it in the sandbox, reads the errors and
fixes the code (bounded attempts), and returns the values and files the code produced.

The code gets its inputs in ``inputs.json`` and reports its outputs in ``outputs.json`` (one
key per output) or, with one output, by printing it; other files it writes are artifacts.
Every execution is in the log (request and result), which replay serves instead of Docker.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path

from autogen_core.models import LLMMessage, UserMessage

from bus import Envelope
from bus.payloads import ExecRequest, TaskAssignment, TaskResult, Usage
from bus.verdicts import CheckVerdict, Level
from roles.calls import ModelCalls
from roles.coder import prose
from roles.coder.artifacts import save_artifacts
from roles.coder.checks import checks_for
from roles.coder.function_task import by_drafts
from roles.coder.goal_check import by_goal_check
from roles.coder.instructions import SYSTEM, task_request, with_libraries
from roles.coder.missing_imports import with_imports
from roles.coder.plain import plain_request
from roles.coder.quotation import (
    by_quotation,
    prose_request,
    quotation_of,
    quoted_candidate,
    scaled,
    sentence_candidate,
    table_candidate,
    text_asked,
    views_for,
    worded,
)
from roles.coder.select import View, select
from roles.coder.solve import Program, solve
from roles.coder.votes import Solved, Vote, repeatable, tied_level, voted
from roles.context import RoleContext
from roles.errors import ModelAnswerError, TaskFailed
from roles.execution import CodeRunner, ExecutionResult, to_payload
from roles.settings import CoderSettings
from roles.solutions import SOLUTION, relevance
from roles.verifier import checks as verifier
from roles.verifier.agreement import quoted_in
from roles.verifier.checks import Judged, VerifierCheck
from roles.verifier.spec import AnswerSpec, StatedProperties, check_program, clause_program
from roles.worker import WorkerRole

__all__ = ["STRATEGIES", "Coder", "Strategy", "strategy_for"]


LOG_FILE_CAP = 256_000
"""Files larger than this (bytes) are kept as artifacts but not copied into the log."""


class Coder(WorkerRole[CoderSettings]):
    """Does coding tasks in the sandbox."""

    name = "coder"

    def __init__(self, ctx: RoleContext[CoderSettings]) -> None:
        super().__init__(ctx)
        self._examples: dict[str, list[str]] = {}
        """Worked examples recalled for each task (its prompts quote them)."""
        self.verifier = ctx.deps.verifier
        """The verifier's settings: the checks this role runs are the verifier's."""
        self.judge = self.calls
        """The verifier's model calls (its own model, when the scenario gives it one)."""
        if ctx.deps.judge is not None:
            self.judge = ModelCalls(
                self.name,
                ctx.deps.judge,
                ctx.deps.guard,
                self.send,
                prompts=ctx.deps.prompts,
                checkpoint=self.checkpoint,
                max_parse_tries=self.verifier.max_parse_tries,
            )

    @property
    def runner(self) -> CodeRunner:
        """The sandbox (given by whoever started the role)."""
        runner = self.deps.code
        if runner is None:
            msg = "no sandbox is available to run code"
            raise TaskFailed(msg)
        return runner

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Answer the task by the first of `STRATEGIES` that fits it."""
        strategy = strategy_for(assignment, self.settings)
        self.log.info("strategy", task=assignment.task.id, strategy=strategy.name)
        if strategy.recalls:
            self._examples[assignment.task.id] = await self._worked_examples(env, assignment.goal)
        return await strategy.answer(self, env, assignment)

    async def _once(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """One program that runs and writes every output, and no check of its values (with
        ``cross_check`` off): a program that merely ran checks nothing, so the result carries
        no verdict and a run it answers ends ``unverified``."""
        first = await self.solved(env, assignment, self.prompt(assignment))
        return self.done(assignment, first, note="no second computation (cross_check is off)")

    async def _voted(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Outputs other than the answer: checked by a second program written independently,
        and a third to break a tie (`roles.coder.votes`); programs left tied are kept as
        ``level`` candidates, for the goal check to weigh (`roles.manager.final`)."""
        first = await self.solved(env, assignment, self.prompt(assignment))
        vote = await self.vote(env, assignment, first)
        result = self.done(assignment, vote.kept, note=vote.note, verdicts=[vote.verdict()])
        return result.model_copy(update={"level": tied_level(vote, self.run_dir, result.task_id)})

    async def vote(self, env: Envelope, assignment: TaskAssignment, first: Solved) -> Vote:
        """``first`` checked by programs written independently (`roles.coder.votes`)."""

        async def solve(note: str) -> Solved:
            return await self.solved(env, assignment, self.prompt(assignment, note))

        vote = await voted(first, solve, repeatable(assignment))
        if vote.failure:
            self.log.info("check program failed", task=assignment.task.id, error=vote.failure[:200])
        return vote

    async def _selected(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """The answer: the verifier's check from the goal alone, then candidates drawn through
        views that fail differently, grouped and selected (`roles.coder.select`)."""
        task = assignment.task
        judge: Callable[[list[str]], Awaitable[Judged]] | None = None
        kind, asked = "", 0
        if self.verifier.verify:
            check = await self._verifier_check(env, assignment)
            kind, asked = check.kind, check.values_asked

            async def judge_(answers: list[str]) -> Judged:
                async def run(code: str, files: dict[str, bytes]) -> tuple[ExecutionResult, str]:
                    return await self.execute(env, task.id, code, files)

                return await verifier.judge(check, answers, assignment.inputs, run)

            judge = judge_

        async def ask(messages: list[LLMMessage]) -> str:
            return (await self.calls.call(messages, parent=env, task_id=task.id)).text

        async def draw(view: View) -> Solved:
            if view.kind == "quotation":
                return quoted_candidate(assignment)
            if view.kind == "sentence":
                return sentence_candidate(assignment, self.documents)
            if view.kind == "table":
                return table_candidate(assignment, self.documents)
            if view.kind == "prose":
                asked = prose_request(assignment, self.documents, view.note)
                solved = prose.worked(await ask(asked))
                if (in_words := worded(solved, assignment, self.documents)) is not solved:
                    return in_words
                return scaled(solved, kind, assignment, self.documents)
            if view.kind == "plain":
                convo = plain_request(assignment, self.documents, self.deps.libraries)
            else:
                convo = self.prompt(assignment, view.note)
            solved = await self.solved(env, assignment, convo, self.settings.candidate_attempts)
            return scaled(replace(solved, view=view.kind), kind, assignment, self.documents)

        views = views_for(assignment, self.settings.prose, self.documents, self.settings.plain)
        chosen = await select(
            draw,
            judge,
            "answer",
            repeatable(assignment),
            self.settings.candidates,
            views,
            self.verifier.min_confidence,
            text_asked(assignment),
            asked,
        )
        for failure in chosen.failures:
            self.log.info("candidate failed", task=task.id, error=failure[:200])
        result = self.done(assignment, chosen.kept, note=chosen.note, verdicts=chosen.verdicts)
        level = [
            Level(
                outputs=other.kept.outputs,
                artifacts=save_artifacts(self.run_dir, f"{task.id}/level-{n}", other.kept.files),
                verdicts=other.verdicts,
                confidence=other.confidence,
            )
            for n, other in enumerate(chosen.level, 1)
        ]
        return result.model_copy(update={"confidence": chosen.confidence, "level": level})

    async def _worked_examples(self, env: Envelope, goal: str) -> list[str]:
        """Verified solutions of goals like this one (`roles.solutions`), recalled once."""
        least = self.settings.min_relevance
        return await self.recall(
            goal,
            parent=env,
            kind=SOLUTION,
            k=self.settings.solutions,
            near=lambda other: relevance(goal, other) >= least,
        )

    async def _verifier_check(self, env: Envelope, assignment: TaskAssignment) -> VerifierCheck:
        """The verifier's check: what every right answer must be, stated from the goal, its
        values and its documents' names alone (no candidate exists yet), as a program. When
        the goal asks for a clause of the report's text (its words say so, `text_asked`), a
        clause with no call (`clause_program`): at 1.5B the verifier read such questions as
        asking for an amount, and its check passed a worked answer's figure over the
        report's reason."""
        if text_asked(assignment):  # the goal's words say it: no call to state the kind
            return VerifierCheck(clause_program(), kind="text")
        request = verifier.request(
            assignment.goal,
            assignment.inputs,
            list(self.documents),
            self.verifier.instructions or None,
            self.verifier.properties,
        )
        shape = StatedProperties if self.verifier.properties else AnswerSpec
        try:
            spec: AnswerSpec = await self.judge.structured(
                request, shape, what="answer spec", parent=env, task_id=assignment.task.id
            )
        except (ModelAnswerError, TaskFailed) as exc:
            return VerifierCheck("", f"the verifier stated nothing usable: {exc}")
        given = json.dumps(assignment.inputs, ensure_ascii=False)
        quoted = quoted_in(assignment.goal) | quoted_in(given)
        return VerifierCheck(
            check_program(spec, quoted), kind=spec.kind, values_asked=spec.values_asked
        )

    def done(
        self,
        assignment: TaskAssignment,
        solved: Solved,
        note: str = "",
        verdicts: list[CheckVerdict] | None = None,
    ) -> TaskResult:
        """The task's result from ``solved``: its outputs, its files saved as artifacts, and
        ``verdicts``; ``note`` says why it is unchecked."""
        task = assignment.task
        summary = f"succeeded after {solved.attempts} attempt(s)"
        if solved.view == "quotation":
            summary = "answered by the researcher's quotation, as it stands in the documents"
        elif solved.view == "sentence":
            summary = "answered by the documents' sentence that another view's answer stands in"
        elif solved.view == "table":
            summary = f"found by code in the table's cells the goal names: {solved.code}"
        return TaskResult(
            task_id=task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs=solved.outputs,
            artifacts=save_artifacts(self.run_dir, task.id, solved.files),
            summary=f"{summary}; unchecked: {note}" if note else summary,
            verdicts=verdicts or [],
        )

    async def solved(
        self,
        env: Envelope,
        assignment: TaskAssignment,
        convo: list[LLMMessage],
        attempts: int | None = None,
    ) -> Solved:
        """One program that runs and passes the checks, fixed from its problems (bounded;
        `roles.coder.solve`)."""
        task = assignment.task

        async def ask(messages: list[LLMMessage]) -> str:
            return (await self.calls.call(messages, parent=env, task_id=task.id)).text

        async def execute(code: str, files: dict[str, bytes]) -> tuple[ExecutionResult, str]:
            return await self.execute(env, task.id, code, files)

        def failed(attempt: int, problem: str) -> None:
            self.log.info(
                "code attempt failed", task=task.id, attempt=attempt, problem=problem[:200]
            )

        program = Program(
            task.outputs,
            assignment.inputs,
            quoted_in(assignment.goal),
            self.deps.libraries,
            checks_for(task, assignment.goal),
            documents=self.documents,
        )
        return await solve(
            convo,
            program,
            ask,
            execute,
            attempts or self.settings.max_attempts,
            self.imported,
            failed,
        )

    async def execute(
        self, env: Envelope, task_id: str, code: str, files: dict[str, bytes]
    ) -> tuple[ExecutionResult, str]:
        """``code`` run in the sandbox with ``files``, recorded in the log (request, result,
        sandbox time) and held against the budget; the result and its message's id."""
        timeout = self.deps.sandbox_timeout_s
        req_id = await self.send(
            ExecRequest(code=code, input_files=sorted(files), timeout_s=timeout),
            parent=env,
            task_id=task_id,
        )
        guard = self.deps.guard
        held = await guard.hold_sandbox(timeout) if guard is not None else None
        try:
            run = await self.runner.execute(code, files, timeout)
        finally:
            if guard is not None and held is not None:
                await guard.release(held)
        if guard is not None:
            await guard.add_sandbox(run.wall_s)
        result_id = await self.send(to_payload(run, LOG_FILE_CAP), parent=req_id, task_id=task_id)
        await self.send(
            Usage(kind="sandbox", sandbox_s=round(run.wall_s, 6)), parent=req_id, task_id=task_id
        )
        return run, result_id

    @property
    def run_dir(self) -> Path:
        """The run's folder (the tasks' artifacts go under it)."""
        return self.ctx.run_dir

    @property
    def documents(self) -> dict[str, str]:
        """The goal's documents by file name (the researcher's corpus)."""
        corpus = self.deps.corpus
        return dict(corpus.texts) if corpus is not None else {}

    def imported(self, code: str) -> str:
        """``code`` with the module imports it uses and forgot (`with_imports`)."""
        libraries = self.deps.libraries
        available = frozenset(libraries.importable()) if libraries is not None else None
        code, added = with_imports(code, available)
        if added:
            self.log.info("added missing imports", imports=added)
        return code

    def with_libraries(self, system: str) -> str:
        """``system`` with the sandbox's libraries named."""
        libraries = self.deps.libraries
        return with_libraries(system, libraries.described() if libraries is not None else None)

    def prompt(self, assignment: TaskAssignment, note: str = "") -> list[LLMMessage]:
        """The first messages for a coding task (``note``: what a check program is told)."""
        examples = self._examples.get(assignment.task.id, [])
        notes = assignment.notes + (self.talk.take_remarks() if not note else [])
        request = task_request(assignment, self.documents, examples, notes, note)
        return [
            self.system_prompt(self.with_libraries(self.instructions(SYSTEM))),
            UserMessage(content=request, source="manager"),
        ]


@dataclass(frozen=True)
class Strategy:
    """One way the coder answers a task, and which tasks it is for."""

    name: str
    fits: Callable[[TaskAssignment, CoderSettings], bool]
    answer: Callable[[Coder, Envelope, TaskAssignment], Awaitable[TaskResult]]
    recalls: bool = True
    """Whether verified solutions of like goals are recalled for its prompts first."""


STRATEGIES: tuple[Strategy, ...] = (
    Strategy("function", lambda a, s: a.deliverable is not None, by_drafts, False),
    Strategy("goal_check", lambda a, s: a.task.purpose == "goal_check", by_goal_check),
    Strategy(
        "select", lambda a, s: bool(s.cross_check) and "answer" in a.task.outputs, Coder._selected
    ),
    Strategy("quotation", lambda a, s: quotation_of(a) is not None, by_quotation, False),
    Strategy("vote", lambda a, s: bool(s.cross_check) and bool(a.task.outputs), Coder._voted),
    Strategy("once", lambda a, s: True, Coder._once),
)
"""In order, the first that fits answers: a function by drafts and the verifier's tests; the
goal check by two programs; the answer by candidates drawn through views and selected (the
researcher's quotation one of them); with checks off, an answer the researcher quoted by the
quotation; other outputs by a second program that must agree; else one program, unchecked."""


def strategy_for(assignment: TaskAssignment, settings: CoderSettings) -> Strategy:
    """The strategy that answers ``assignment`` (the last always fits)."""
    return next(s for s in STRATEGIES if s.fits(assignment, settings))
