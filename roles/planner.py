"""The planner: turns the goal into success criteria and a task graph (and revises it), and
answers other roles' questions about their tasks.

Uses: the model (and budget guard), and long-term memory for lessons.
"""

from __future__ import annotations

import json

from autogen_core.models import LLMMessage, UserMessage

from bus import Envelope
from bus.deliverable import Deliverable
from bus.payloads import Chat, Plan, PlanRequest, TaskSpec
from bus.subjects import Channel
from bus.workqueue import Delivery, QueueSpec
from roles.base import Role
from roles.context import RoleContext
from roles.errors import BudgetExceeded, ModelAnswerError, TaskFailed
from roles.plan_schema import READING_OPENS, READING_OUTPUTS, PlanAnswer, plan_shape
from roles.settings import PlannerSettings

__all__ = ["PlanAnswer", "Planner", "document_plan", "function_plan", "goal_plan", "plan_shape"]

SYSTEM = """You are the planner of a team of AI agents. You turn a goal into:
1. success_criteria: a few concrete, checkable statements that are true when the goal is met;
2. tasks: the fewest tasks that do the job. One task is the right plan for a goal that one
   program can answer; split only where the roles must differ (reading documents, then
   computing) or where parts are truly independent.

The roles:
- coder: writes and runs a Python program. Everything that is computed goes to the coder:
  arithmetic, counting, dates, statistics, unit conversion, tables, text processing.
- researcher: answers from the documents given with the goal (it cannot run code).
Use only the roles listed in the request.

Each task has: id (a short identifier such as compute), role, description (self-contained:
exactly what to compute, with the goal's own words and values, and what to report),
inputs (names of values it reads: the goal's values, or outputs of tasks it depends on),
outputs (snake_case identifiers, each naming the value it holds), depends_on (ids of
tasks that must finish first). Every task can read the values given with the goal. The last task has an output
named "answer": the final answer to the goal, one sentence that states every value the
goal asks for.

Answer with one JSON object only:
{"success_criteria": [...], "tasks": [...], "rationale": "..."}"""


READ_THEN_COMPUTE = (
    "Plan it as reading, then computing: the first task is the researcher's, to find in the "
    "documents what the goal needs from them (a statement, a definition, a formula, a fact; "
    f"never a computation or a count): its description begins {READING_OPENS.strip()!r}, "
    f"and its outputs are one or two of {', '.join(READING_OUTPUTS)}. The tasks after it "
    "compute, reading the researcher's output, and the last gives the answer."
)
"""The planner's first plan over documents, in words (its schema holds it to the order)."""

CLARIFY = """You are the planner of a team of AI agents. A teammate asks you about the
task you gave them. Answer briefly and concretely, in plain text."""


def function_plan(request: PlanRequest, deliverable: Deliverable) -> Plan:
    """The plan for a goal whose answer is a function: one coding task writes it, no model
    asked (a small model splits "complete this function" into tasks computing values)."""
    name = deliverable.function
    tid = "implement" if request.revision == 1 else f"implement_{request.revision}"
    task = TaskSpec(
        id=tid,
        role="coder",
        description=(
            f"Write the Python function `{name}` so that it does what its docstring says; "
            "the answer is its code."
        ),
        outputs=["answer"],
    )
    criteria = request.success_criteria or [
        f"`{name}` does what its docstring says, on the examples it states and beyond"
    ]
    return Plan(
        revision=request.revision,
        success_criteria=criteria,
        tasks=[task],
        rationale="the answer is one function: one coding task writes and checks it",
    )


def goal_plan(request: PlanRequest) -> Plan:
    """The first plan for a goal the coder can work on: one task that answers the goal in
    its own words, no model asked (the goal's documents are files beside its program). A small model's restatement is where its mistakes
    enter (a wrong formula that the program and its independent check then both follow);
    a replan, with the failure in hand, goes to the model."""
    source = (
        "from the values given with it"
        if request.goal_inputs
        else "from the numbers and facts the goal itself states (no values are given apart)"
    )
    task = TaskSpec(
        id="solve",
        role="coder",
        description=(
            f"Answer the overall goal exactly as it is stated: the program computes every "
            f"value the goal asks for {source} (none worked out beforehand and written in), "
            "and gives `answer`: one sentence that states each computed value."
        ),
        inputs=list(request.goal_inputs),
        outputs=["answer"],
    )
    criteria = request.success_criteria or [
        "the answer states every value the goal asks for, computed from the goal's values"
    ]
    return Plan(
        revision=request.revision,
        success_criteria=criteria,
        tasks=[task],
        rationale="one program answers the goal as stated",
    )


def document_plan(request: PlanRequest) -> Plan:
    """The first plan for a goal over documents, no model asked: the researcher reads them
    and quotes the evidence (each quote confirmed by code where it stands), and the coder
    answers from the quotes — by quotation when the goal asks for the report's words, by a
    program when a value must be computed. Reading and computing are different jobs: a
    small model's program that parses a report's table itself misreads it."""
    given = list(request.goal_inputs)
    read = TaskSpec(
        id="read",
        role="researcher",
        description=(
            "Find in the documents what the overall goal needs. Quote every value and phrase "
            "the answer rests on; for a change, a difference, an average or a ratio, quote "
            "each value it is computed from (every year or column it needs), and the scale "
            'the report gives its figures (a heading such as "$ in millions"). In `quoted`, '
            "give the answer in the document's own words when it stands there as it is (a "
            "name, a reason, a figure the report states, or every item when several are "
            'asked, as a list); when it must be computed, `quoted` is "".'
        ),
        inputs=given,
        outputs=["evidence", "values", "quoted"],
    )
    solve = TaskSpec(
        id="solve",
        role="coder",
        description=(
            "Answer the overall goal from the evidence the researcher quoted from the "
            "documents (`values`: each quoted figure as a number, by its row and column; "
            "`evidence`: the quotes). When `quoted` holds the answer in the report's words, "
            "the answer is `quoted` as it is (no program). Otherwise the program computes every value "
            "the goal asks for from `values`, none worked out beforehand and written in, and "
            "gives `answer`: one sentence that states each value with its scale or unit as "
            "the report gives it."
        ),
        inputs=["values", "evidence", "quoted", *given],
        outputs=["answer"],
        depends_on=["read"],
    )
    criteria = request.success_criteria or [
        "the answer states what the goal asks for, as the documents give it or computed "
        "from values quoted from them"
    ]
    return Plan(
        revision=request.revision,
        success_criteria=criteria,
        tasks=[read, solve],
        rationale="the researcher quotes the evidence from the documents; the coder answers from it",
    )


class Planner(Role[PlannerSettings]):
    """Answers plan requests with plans."""

    name = "planner"

    def __init__(self, ctx: RoleContext[PlannerSettings]) -> None:
        super().__init__(ctx)
        self.lessons: list[str] | None = None
        """Lessons of earlier runs for this run's goal (recalled at the first request)."""

    def queues(self) -> list[QueueSpec]:
        """Plan requests, through a work queue shared by planner instances."""
        parallel = self.settings.concurrency
        return [QueueSpec("plan-request", (Channel.PLAN_REQUEST,), parallel=parallel)]

    async def handle(self, env: Envelope) -> None:
        """Plan on request (each delivery runs in its own task, so control still gets through)."""
        if isinstance(env.payload, PlanRequest):
            await self._plan(env, env.payload)

    async def on_exhausted(self, delivery: Delivery) -> None:
        """A plan request no planner finished: answer with the reason, so the run ends clearly."""
        request = delivery.envelope.payload
        if isinstance(request, PlanRequest):
            reason = f"no planner finished it in {delivery.deliveries - 1} deliveries"
            failed = Plan(revision=request.revision, status="failed", error=reason)
            await self.send(failed, parent=delivery.envelope)

    async def _plan(self, env: Envelope, request: PlanRequest) -> None:
        if request.deliverable is not None and "coder" in request.roles:
            await self.send(function_plan(request, request.deliverable), parent=env)
            return
        first = request.revision == 1 and not request.errors
        if first and self.settings.one_task_first and self._one_program(request):
            plan = document_plan(request) if self._read_first(request) else goal_plan(request)
            await self.send(plan, parent=env)
            return
        if self.lessons is None:  # the goal does not change within a run: recall once
            self.lessons = await self.recall(request.goal, parent=env)
        try:
            reads = self._has_documents() and "researcher" in self.roles(request)
            shape = plan_shape(
                self.roles(request),
                self.settings.max_tasks,
                reads_first=reads and first,
                reads_optional=reads and not first,
            )
            answer = await self.calls.structured(
                self.prompt(request),
                shape,
                what="plan",
                parent=env,
                task_id=None,
            )
        except (ModelAnswerError, TaskFailed) as exc:
            await self.send(
                Plan(revision=request.revision, status="failed", error=str(exc)), parent=env
            )
            return
        except BudgetExceeded as exc:
            stopped = Plan(revision=request.revision, status="budget_exhausted", error=exc.reason)
            await self.send(stopped, parent=env)
            return
        criteria = request.success_criteria or answer.success_criteria
        await self.send(
            Plan(
                revision=request.revision,
                success_criteria=criteria,
                tasks=answer.tasks,
                rationale=answer.rationale,
            ),
            parent=env,
        )

    async def on_question(self, env: Envelope, chat: Chat) -> None:
        """A role asks the planner for clarification: answer with the model."""
        prompt: list[LLMMessage] = [
            self.system_prompt(CLARIFY),
            UserMessage(content=f"The {env.role} asks: {chat.text}", source=env.role),
        ]
        try:
            reply = await self.calls.call(prompt, parent=env, task_id=env.task_id)
            text = reply.text
        except (ModelAnswerError, TaskFailed) as exc:
            text = f"(the planner could not answer: {exc})"
        await self.talk.reply(env, text)

    def _one_program(self, request: PlanRequest) -> bool:
        """Whether one coding task can take the whole goal: only the coder can work on it,
        or what else there is to read are the goal's documents (the coder gets them as files)."""
        roles = self.roles(request)
        if any(r in self.deps.specialists for r in roles):  # the scenario wants them used
            return False
        documents = self.deps.corpus is not None and bool(self.deps.corpus.names)
        return roles == ("coder",) or ("coder" in roles and documents)

    def _has_documents(self) -> bool:
        return self.deps.corpus is not None and bool(self.deps.corpus.names)

    def _read_first(self, request: PlanRequest) -> bool:
        """Whether the first plan reads before it computes: the goal has documents and the
        researcher may be given tasks (`PlannerSettings.read_first`)."""
        documents = self.deps.corpus is not None and bool(self.deps.corpus.names)
        roles = self.roles(request)
        return self.settings.read_first and documents and {"researcher", "coder"} <= set(roles)

    def roles(self, request: PlanRequest) -> tuple[str, ...]:
        """The roles a plan may use: the run's, less the researcher when it may not be
        offered (nothing to read)."""
        barred = {"researcher"} if self.settings.offer_researcher is False else set()
        kept = tuple(r for r in request.roles if r not in barred)
        return kept or tuple(request.roles)

    def prompt(self, request: PlanRequest) -> list[LLMMessage]:
        """The messages for a plan request."""
        parts = [f"Goal: {request.goal}"]
        roles = self.roles(request)
        parts.append(f"Roles that can do tasks: {', '.join(roles)}")
        offered = [
            f"- {r}: {self.deps.specialists[r]}" for r in roles if r in self.deps.specialists
        ]
        if offered:
            parts.append(
                "Specialists of this team (give each the tasks it takes):\n" + "\n".join(offered)
            )
        if "researcher" in roles:
            corpus = self.deps.corpus
            if corpus is not None and corpus.names:
                parts.append(f"Documents the researcher can read: {', '.join(corpus.names[:20])}")
                if request.revision == 1 and not request.errors:
                    parts.append(READ_THEN_COMPUTE)
            else:
                parts.append(
                    "No documents are given in this run: the researcher could only guess, so "
                    "give every value that must be computed or looked up to the coder."
                )
        if request.goal_inputs:
            parts.append(f"Values given with the goal: {', '.join(request.goal_inputs)}")
        if request.success_criteria:
            parts.append("Success criteria (keep them): " + "; ".join(request.success_criteria))
        if request.completed:
            done = json.dumps(request.completed, ensure_ascii=False)[:4000]
            parts.append(
                "Tasks already completed (keep their ids out of the new plan; their outputs "
                f"are available as inputs): {done}"
            )
        if request.failed:
            parts.append(f"Tasks that failed: {json.dumps(request.failed)[:2000]}")
        if request.critique:
            parts.append(f"Why a revision is needed ({request.reason}): {request.critique}")
        if request.errors:
            parts.append("Your previous plan was refused:\n- " + "\n- ".join(request.errors))
        lessons = self.lessons or []
        if lessons:
            parts.append("Lessons from earlier work:\n- " + "\n- ".join(lessons))
        parts += self.talk.take_remarks()
        parts.append(f"This is plan revision {request.revision}. Answer with the JSON object.")
        return [
            self.system_prompt(self.instructions(SYSTEM)),
            UserMessage(content="\n\n".join(parts), source="manager"),
        ]
