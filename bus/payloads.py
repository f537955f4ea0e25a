"""The payload kinds of the protocol: one pydantic model each, discriminated on ``type``.

Each payload names the channel it travels on (`CHANNEL`), so subjects are derived from
the message, never typed by hand, and whether it changes the run's state (`DURABLE`):
those a durable bus stores through JetStream before going on, so a server restart or a
crash cannot lose them. Field docstrings become the JSON Schema descriptions
that ``society schema`` publishes for agents written in other languages.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import Field, JsonValue, model_validator

from bus.deliverable import Deliverable
from bus.evidence import Quote
from bus.execution import Artifact, ExecRequest, ExecResult
from bus.payload_base import _Model, _Payload
from bus.subjects import Channel
from bus.usage import Recall, RecalledLesson, Retry, ToolCall, ToolRequest, Usage
from bus.verdicts import CheckVerdict, Confidence, Level, Verdict

__all__ = [
    "PAYLOAD_TYPES",
    "REPLANS",
    "Answer",
    "Artifact",
    "Chat",
    "Control",
    "Critique",
    "DeadLetter",
    "Deliverable",
    "ExecRequest",
    "ExecResult",
    "Final",
    "Goal",
    "Lesson",
    "Payload",
    "Plan",
    "PlanDecision",
    "PlanRequest",
    "Presence",
    "Question",
    "Rating",
    "Recall",
    "RecalledLesson",
    "Retry",
    "TaskAssignment",
    "TaskResult",
    "TaskSpec",
    "ToolCall",
    "ToolRequest",
    "Usage",
    "Verdict",
]


class Goal(_Payload):
    """The user's goal: starts a run."""

    CHANNEL: ClassVar[Channel] = Channel.GOAL
    DURABLE: ClassVar[bool] = True
    type: Literal["goal"] = "goal"
    text: str
    """What the society should achieve, in plain words."""
    inputs: dict[str, JsonValue] = {}
    """Named values given with the goal; tasks may take them as inputs."""
    scenario: dict[str, JsonValue] | None = None
    """The scenario the run was started with (secrets redacted), so a log can be re-run."""
    origin: str | None = None
    """For a forked run: ``<run id>@<message number>`` of the run it continues."""
    deliverable: Deliverable | None = None
    """What the answer must be when it is code (a function), not a statement of values."""


class TaskSpec(_Model):
    """One node of the task graph."""

    id: str
    """Unique id within the plan (letters, digits, '_' and '-')."""
    role: str
    """The role that does the task (researcher, coder, ...)."""
    description: str
    """What to do, so that the role can do it without other context."""
    inputs: list[str] = []
    """Names of values this task needs: outputs of upstream tasks or goal inputs."""
    outputs: list[str] = []
    """Names of the values this task produces."""
    depends_on: list[str] = []
    """Ids of tasks that must finish first."""
    effort: float = Field(default=1.0, gt=0)
    """Estimated effort (relative units, > 0)."""
    value: float = Field(default=1.0, ge=0)
    """Estimated value towards the goal (relative units, >= 0)."""
    purpose: Literal["work", "goal_check"] = "work"
    """What the task is for: ``work`` towards the answer, or ``goal_check``: the manager's
    independent answer to the whole goal, which checks the plan's answer (never a planner's)."""


class PlanRequest(_Payload):
    """The manager asks the planner for a plan, or for a revision of one."""

    CHANNEL: ClassVar[Channel] = Channel.PLAN_REQUEST
    DURABLE: ClassVar[bool] = True
    type: Literal["plan_request"] = "plan_request"
    goal: str
    revision: int = Field(default=1, ge=1)
    """Revision number the plan should carry."""
    attempt: int = Field(default=1, ge=1)
    """Try number for this revision (validation errors send the planner back)."""
    reason: Literal["initial", "invalid", "critique", "rejected", "failure", "escalation"]
    """Why a plan is asked for; only ``REPLANS`` spend the replan budget (a person's
    rejection does not: it is their decision, not a loop the critic caught)."""
    goal_inputs: list[str] = []
    deliverable: Deliverable | None = None
    """The goal's answer is this function: one coding task writes it."""
    """Names of the values the goal provides."""
    roles: list[str] = []
    """The roles available to do tasks."""
    errors: list[str] = []
    """Why the previous attempt was refused."""
    completed: dict[str, dict[str, JsonValue]] = {}
    """Outputs of tasks already done, by task id: keep them, do not redo them."""
    failed: dict[str, str] = {}
    """Tasks that failed, by task id, with the reason."""
    critique: str | None = None
    """The critique or human remark that caused this request."""
    evidence: list[str] = []
    """Message ids the critique points at."""
    success_criteria: list[str] = []
    """Criteria already agreed (kept across revisions)."""


REPLANS = frozenset({"critique", "failure", "escalation"})
"""The reasons for a plan request that count against ``budgets.replans``."""


class Plan(_Payload):
    """The planner's task graph for a goal."""

    CHANNEL: ClassVar[Channel] = Channel.PLAN
    DURABLE: ClassVar[bool] = True
    type: Literal["plan"] = "plan"
    revision: int = Field(ge=1)
    success_criteria: list[str] = []
    """Concrete, checkable criteria for the goal being met."""
    tasks: list[TaskSpec] = []
    rationale: str = ""
    status: Literal["proposed", "failed", "budget_exhausted"] = "proposed"
    """``failed`` or ``budget_exhausted`` when the planner could not produce a plan."""
    error: str | None = None
    """Why the planner could not produce a plan."""


class PlanDecision(_Payload):
    """The manager's verdict on a plan (validation, or a human's approval)."""

    CHANNEL: ClassVar[Channel] = Channel.PLAN_DECISION
    type: Literal["plan_decision"] = "plan_decision"
    revision: int
    accepted: bool
    errors: list[str] = []
    merged: dict[str, str] = {}
    """Near-duplicate task ids merged into the kept one."""
    kept: list[str] = []
    """Task ids whose completed outputs carry over from an earlier revision."""
    repaired: dict[str, str] = {}
    """Wiring the manager mended instead of refusing the plan: ``"<task>.<field>[.<name>]"``
    -> what it became (a role, an input's source, a dependency added or dropped)."""


class TaskAssignment(_Payload):
    """The manager hands a ready task to a role, with the values of its inputs."""

    CHANNEL: ClassVar[Channel] = Channel.TASK
    DURABLE: ClassVar[bool] = True
    type: Literal["task"] = "task"
    task: TaskSpec
    goal: str
    inputs: dict[str, JsonValue] = {}
    goal_values: list[str] = []
    """The names among ``inputs`` given with the goal, not computed by a task: numbers an
    answer may restate as it may the goal's text's (the quickstart's ``limit``)."""
    attempt: int = Field(default=1, ge=1)
    plan_revision: int = 1
    notes: list[str] = []
    """Lessons and remarks the role should take into account."""
    deliverable: Deliverable | None = None
    """The task's ``answer`` is this function's code (checked by its docstring's examples)."""


class TaskResult(_Payload):
    """A role reports the outcome of a task."""

    CHANNEL: ClassVar[Channel] = Channel.RESULT
    DURABLE: ClassVar[bool] = True
    type: Literal["result"] = "result"
    task_id: str
    role: str
    attempt: int = 1
    status: Literal["done", "failed", "cancelled", "budget_exhausted"]
    """``budget_exhausted``: a budget stopped the task (the manager ends the run)."""
    outputs: dict[str, JsonValue] = {}
    artifacts: list[Artifact] = []
    error: str | None = None
    cause: Literal["work", "model", "worker"] = "work"
    """Why it failed: the work itself, the model unreachable, or every worker dying."""
    summary: str = ""
    verdicts: list[CheckVerdict] = []
    """Every check of the outputs, one typed verdict each (what decides the run's status)."""
    confidence: Confidence | None = None
    """How sure the outputs are, from the views that agree on them (None: none stated)."""
    quotes: list[Quote] = []
    """The evidence the outputs rest on, quoted from the documents (the researcher's)."""
    level: list[Level] = []
    """Candidates that ranked level with the one whose outputs these are (`bus.verdicts.Level`)."""

    @model_validator(mode="before")
    @classmethod
    def _derived_fields_of_old_logs(cls, data: Any) -> Any:
        """Logs written before ``checks`` and ``evidence`` were derived still read."""
        if isinstance(data, dict) and ("checks" in data or "evidence" in data):
            return {k: v for k, v in data.items() if k not in ("checks", "evidence")}
        return data

    @property
    def checks(self) -> list[str]:
        """What the checks that passed checked, one sentence each (from ``verdicts``)."""
        return [v.what for v in self.verdicts if v.passed]

    @property
    def evidence(self) -> list[str]:
        """Ids of the messages the passed checks rest on (from ``verdicts``)."""
        return [e for v in self.verdicts if v.passed for e in v.evidence]


class Question(_Payload):
    """A role (or the manager) asks the human; proceeds on the default after the timeout."""

    CHANNEL: ClassVar[Channel] = Channel.HUMAN_ASK
    type: Literal["question"] = "question"
    question_id: str
    kind: Literal["question", "plan_approval", "escalation"] = "question"
    text: str
    options: list[str] = []
    default: str
    timeout_s: float


class Answer(_Payload):
    """A human's answer to a question (approval: ``approved`` is set)."""

    CHANNEL: ClassVar[Channel] = Channel.HUMAN_ANSWER
    type: Literal["answer"] = "answer"
    question_id: str
    text: str = ""
    approved: bool | None = None
    by: str
    """Who answered: a person's name, or 'default' when the timeout chose."""
    note: str = ""
    """Why the default was taken (nobody answered in time; whether anyone was attached)."""


class Chat(_Payload):
    """Free text: a human remark or a role's note, to one role or to everyone."""

    CHANNEL: ClassVar[Channel] = Channel.CHAT
    type: Literal["chat"] = "chat"
    text: str
    to: str | None = None
    """Addressed role, or None for everyone."""
    by: str | None = None
    """The person who said it (None for a role)."""
    intent: Literal["remark", "question", "reply", "notice"] = "remark"
    """A remark (goes into the addressee's next prompt), a question to a role, the reply
    to one (``parent_id`` names the question), or a notice for people only."""


class Rating(_Payload):
    """A human rates a task result."""

    CHANNEL: ClassVar[Channel] = Channel.HUMAN_ANSWER
    type: Literal["rating"] = "rating"
    task_id: str
    score: int = Field(ge=1, le=5)
    comment: str = ""
    by: str
    expect: str | None = None
    """The right answer as stated, or ``check``, a regex (`society rate --collect`)."""
    check: str | None = None


class Critique(_Payload):
    """The critic's finding about the run."""

    CHANNEL: ClassVar[Channel] = Channel.CRITIQUE
    type: Literal["critique"] = "critique"
    detector: str
    """Which detector fired (repeat, ping_pong, same_error, stall, drift, redo, review)."""
    verdict: Literal["ok", "loop", "stall", "drift"]
    summary: str
    evidence: list[str] = []
    """Ids of the messages that show the problem."""
    recommendation: str = ""
    goal_satisfied: bool | None = None
    revision: int = 0
    """The plan revision the critique judged (0: before any plan)."""


class Lesson(_Payload):
    """A lesson the reflector learned, stored in long-term memory."""

    CHANNEL: ClassVar[Channel] = Channel.LESSON
    type: Literal["lesson"] = "lesson"
    text: str
    task_kind: str = ""
    source: list[str] = []


class Control(_Payload):
    """Steering the run: pause, resume, abort; budget exhaustion; task cancellation; and
    ``park``: the run only waits for a person, so its processes stop until `society resume`;
    ``resumed``: the run's processes had stopped and `society resume` continued it."""

    CHANNEL: ClassVar[Channel] = Channel.CONTROL
    type: Literal["control"] = "control"
    action: Literal["pause", "resume", "abort", "budget_exhausted", "cancel", "park", "resumed"]
    reason: str = ""
    by: str = ""
    task_ids: list[str] = []
    timeout_s: float | None = None
    """A cancel of tasks that ran past this timeout (their attempts failed)."""


class Presence(_Payload):
    """A role instance announces itself, heartbeats, or leaves."""

    CHANNEL: ClassVar[Channel] = Channel.PRESENCE
    type: Literal["presence"] = "presence"
    status: Literal["up", "heartbeat", "down"]
    role: str
    concurrency: int = 1
    host: str = ""
    pid: int = 0


class Final(_Payload):
    """The run's outcome: the answer, the outputs and artifacts, and a summary."""

    CHANNEL: ClassVar[Channel] = Channel.FINAL
    DURABLE: ClassVar[bool] = True
    type: Literal["final"] = "final"
    status: Literal["succeeded", "unverified", "failed", "aborted", "budget_exhausted"]
    """``succeeded`` only with a verified answer; ``unverified``: an answer no check
    confirmed (or one contradicted), kept for the person to judge."""
    answer: str | None = None
    outputs: dict[str, JsonValue] = {}
    artifacts: list[Artifact] = []
    summary: str = ""
    reason: str = ""
    verdict: Verdict | None = None
    """The verification of the answer (None: the run stopped before one)."""


class DeadLetter(_Payload):
    """A message that failed validation, kept with the error instead of being dropped."""

    CHANNEL: ClassVar[Channel] = Channel.DEAD_LETTER
    type: Literal["dead_letter"] = "dead_letter"
    subject: str
    """The subject the bad message arrived on."""
    raw: str
    """The message as received (decoded as UTF-8 with replacement)."""
    error: str
    """Why it was refused (the validation error)."""
    receiver: str = ""
    """The connection that could not read it."""


Payload = Annotated[
    Goal
    | PlanRequest
    | Plan
    | PlanDecision
    | TaskAssignment
    | TaskResult
    | ExecRequest
    | ExecResult
    | Question
    | Answer
    | Chat
    | Rating
    | Critique
    | Lesson
    | Usage
    | ToolCall
    | Recall
    | Control
    | Presence
    | Final
    | DeadLetter,
    Field(discriminator="type"),
]

PAYLOAD_TYPES: tuple[type[_Payload], ...] = get_args(get_args(Payload)[0])
"""Every payload class, in the union's order."""
