"""Settings every role shares, and each role's own settings model.

The scenario (``society.scenario``) is composed of these models, so a role owns the
meaning and the defaults of its settings. Unknown keys are errors everywhere.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SPECIALIST_NAME",
    "CoderSettings",
    "CriticSettings",
    "HumanSettings",
    "ManagerSettings",
    "PlannerSettings",
    "PresenceSettings",
    "ReflectorSettings",
    "ResearcherSettings",
    "RoleSettings",
    "SpecialistSettings",
    "StrictModel",
    "StructuredMode",
    "VerifierSettings",
]

StructuredMode = Literal["json_schema", "json_object", "ollama", "vllm", "prompt"]
"""How a server takes a schema: OpenAI's ``json_schema`` response format; llama.cpp's
``json_object`` with a ``schema``; Ollama's ``format``; vLLM's ``guided_json``; or not at
all (the schema goes in the prompt and the answer is parsed)."""


class StrictModel(BaseModel):
    """A settings model that refuses unknown keys, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid")


class RoleSettings(StrictModel):
    """What every role has."""

    model: str = "default"
    """Name of the model (in the scenario's ``models``) this role calls."""
    concurrency: int = Field(default=1, ge=1, le=10_000)
    """How many tasks one instance of this role works on at once."""
    instances: int = Field(default=1, ge=1, le=64)
    """How many instances of the role the runner starts (each with its own connection)."""
    prompt: str = ""
    """Extra instructions appended to the role's system prompt."""
    instructions: str = ""
    """The role's instructions in place of its built-in ones (a prompt set of ``society
    train`` fills this); empty: the built-in ones."""
    max_parse_tries: int = Field(default=3, ge=1, le=10)
    """How often a model answer that does not validate is sent back with the error."""


class PresenceSettings(StrictModel):
    """Workers announce themselves and heartbeat; the manager knows who is alive."""

    heartbeat_s: float = Field(default=5.0, gt=0)
    """How often every role instance says it is still there."""
    missed: int = Field(default=3, ge=1, le=100)
    """Heartbeats missed before an instance counts as gone."""
    wait_s: float = Field(default=60.0, gt=0)
    """How long the manager waits for a role it needs and nobody serves before failing the run."""


class ManagerSettings(RoleSettings):
    """The manager validates plans, schedules tasks and enforces budgets."""

    max_plan_tries: int = Field(default=3, ge=1, le=20)
    """Attempts the planner gets to produce a valid plan for one revision."""
    max_task_retries: int = Field(default=1, ge=0, le=10)
    """How often a failed task is retried before the manager replans or gives up."""
    duplicate_threshold: float = Field(default=92.0, ge=50, le=100)
    """Similarity (0-100) above which two tasks of one role count as near-duplicates."""
    task_timeout_s: float = Field(default=600.0, gt=0)
    """A task with no result after this long is failed."""
    budget_grace_s: float = Field(default=5.0, ge=0)
    """When a budget is reached, how long tasks in flight may still report (they cannot spend more)."""
    goal_check: bool = True
    """Whether a plan of several tasks that gives an answer also gets a coder task that
    answers the whole goal on its own; the answer is verified only when the two agree
    (scripted runs too: their script says what that task's program is)."""


class PlannerSettings(RoleSettings):
    """The planner turns the goal into success criteria and a task graph."""

    max_tasks: int = Field(default=5, ge=1, le=1000)
    """The most tasks a plan may have in the schema a live model is held to (the fewest
    that do the job; a small model asked for a graph otherwise splits a one-line goal)."""
    offer_researcher: bool | None = None
    """Whether plans may give the researcher tasks. Default: only when it has something to
    read (documents or tools: with neither it can only guess)."""
    one_task_first: bool = True
    """When the coder can do tasks, the first plan is one coding task that answers the goal
    as stated, with the goal's documents as files (no model call); replans ask the model."""
    read_first: bool = False
    """For a goal with documents (and the researcher offered), that first plan is two tasks:
    the researcher quotes the evidence, the coder answers from it (`document_plan`). On in
    the TAT-QA suite (`society eval --tatqa`): on a dev draw of 8 (1.5B) it answered 4 right,
    none `succeeded` wrong, at 28 % of the tokens of the society without it (1 right). Off
    by default: on the dev suite's documents (tables, policies) it is unmeasured."""


class ResearcherSettings(RoleSettings):
    """The researcher answers from its sources: memory, a local corpus, MCP tools."""

    corpus: list[str] = []
    """Folders or files (relative to the scenario) of documents to search."""
    tools: list[str] = []
    """MCP tools it may call: ``server`` (all its tools) or ``server.tool`` (see ``tools``)."""
    max_hits: int = Field(default=8, ge=1, le=50)
    """Document passages put into the prompt when the documents do not fit one reading."""
    read_chars: int = Field(default=12_000, ge=0)
    """Documents that together hold at most this many characters are read whole (about
    3k tokens); bigger ones are searched (BM25) for the task's passages."""
    max_consults: int = Field(default=3, ge=0, le=50)
    """Questions the researcher may ask the planner per task."""
    require_sources: bool = True
    """An answer counts as checked only when it cites documents it read; one that cites
    none leaves the run ``unverified`` (off: an uncited answer carries no check at all)."""


class CoderSettings(RoleSettings):
    """The coder writes code, runs it in the sandbox, and fixes it from the errors."""

    max_attempts: int = Field(default=3, ge=1, le=20)
    """Runs per task: the first try plus fixes."""
    tools: list[str] = []
    """MCP tools it may call: ``server`` (all its tools) or ``server.tool`` (see ``tools``)."""
    fresh_drafts: int = Field(default=3, ge=0, le=10)
    """For a goal whose answer is a function: fresh drafts after the first draft and its
    fixes failed the docstring's examples (each checked the same way)."""
    function_candidates: int = Field(default=3, ge=1, le=4)
    """With the verifier's ``function_tests``: drafts passing the examples drawn at most; drawing stops
    sooner once one passes every test or two return the same on every test."""
    cross_check: bool = True
    """Check each task's outputs by a second program written independently (a third breaks
    a tie), and the answer by candidates the verifier's check selects among; outputs no
    check confirmed leave the run ``unverified`` (off: one program, which checks nothing,
    so a run it answers ends ``unverified``)."""
    candidates: int = Field(default=3, ge=1, le=6)
    """With ``cross_check``: candidates drawn at most for a task that gives the ``answer``,
    through views that fail differently (a program, a worked answer in prose, programs asked
    other ways; see the coder's select); the group most views agree on that passes the
    verifier's check is kept. Drawing stops once a group is clearly ahead."""
    prose: bool = False
    """With ``cross_check``, for a task whose one output is the ``answer``: a worked answer in
    prose is the second view (after the first program), so that agreement is between ways
    that fail differently, not drafts of one (off: programs only). Off by default: on 7 train
    goals Qwen2.5-Coder-1.5B's prose answer was right on none (it miscounts what its programs
    compute), so at that size it would only cost calls and veto right answers; a view for a
    model that reasons in words as well as it codes."""
    plain: bool = False
    """With ``cross_check``, for a task whose one output is the ``answer`` (prose off): the
    second view is a program asked as a person asks a general assistant — the goal, its
    values as the program's first lines, no team conventions (`roles.coder.plain`) — so
    that the cheapest pair is two requests that fail differently, not two drafts of one. On
    with the verifier's ``min_confidence`` at 0.7 in the dev suite (set on train: the
    pair's agreement alone was right far more often than the rest that passed); off by
    default until val confirms it, as without that threshold it passes more wrong answers
    as well as right ones."""
    candidate_attempts: int = Field(default=2, ge=1, le=20)
    """Runs per candidate (the first try plus fixes): a candidate that keeps failing gives
    way to a fresh one rather than being repaired again."""
    solutions: int = Field(default=0, ge=0, le=5)
    """Verified solutions of similar goals (long-term memory) quoted as worked examples in a
    program's prompt; 0: none. Off by default: on the dev suite's val split (1.5B), memory
    learned from train got 2 fewer of the 9 goals it reached right than no memory."""
    min_relevance: float = Field(default=0.25, ge=0, le=1)
    """How alike a remembered goal must be to be recalled (shared content words, 0-1). On
    the dev suite's train goals, 17 of 80 had another of their kind at 0.25 or above and 2
    one of another kind."""


class VerifierSettings(RoleSettings):
    """The verifier judges answers, never writes them: what kind of value every right answer
    gives, stated from the goal before any candidate exists, and tests of a function written
    from its docstring alone. Its own model (``model``) may be another, say stronger, than
    the solvers'; its calls are made where the candidates are (the coder's process) and
    recorded beside the coder's, so replay serves them alike. ``instructions`` replace its
    built-in ones (a prompt set's ``verifier``)."""

    verify: bool = True
    """With the coder's ``cross_check``: the verifier writes a check program from the goal
    alone, before any candidate, and every candidate answer is run against it."""
    properties: bool = False
    """With ``verify``: the verifier also states the defining properties the goal gives
    (divisible by each of, lies between, sums to, an ordering of given numbers), checked by
    program against every candidate. Off by default: on 19 train goals (Qwen2.5-Coder-1.5B)
    every property it stated with the goal's own numbers was wrong ("between 1 and 40" for
    the 40th Fibonacci number, "divisible by 7 and 11" for a count of such numbers) — a
    check for a stronger verifier model."""
    min_confidence: float = Field(default=0.0, ge=0, le=1)
    """The least confidence (`roles.verifier.confidence`) an answer drawn from views may pass
    at (below it: a failed verdict naming the alternatives). 0: the verdicts alone decide.
    Set it on ``train`` from `society eval`'s "least confidence 95% right"; 0.6 means two
    views agree, or every program drawn agrees with nothing against it."""
    function_tests: bool = True
    """With the coder's ``cross_check``, for a goal whose answer is a function: the verifier
    writes tests from the docstring alone, and drafts that pass its examples are chosen by
    them. On the 16 HumanEval problems outside the measured 40 where the loop ended a false
    success (1.5B): 6 right and 3 false successes with them, 4 and 6 without, at 2.6x the
    calls; on the 40: 31 right either way, 3 false successes against 1, 1.7x the calls."""


class CriticSettings(RoleSettings):
    """The critic reviews the run periodically and names loops, stalls and drift."""

    every_results: int = Field(default=3, ge=1)
    """Review after this many task results."""
    every_s: float = Field(default=60.0, gt=0)
    """Review at least this often (seconds) while the run is active."""
    repeat_threshold: int = Field(default=3, ge=2)
    """Near-identical messages from one role that count as a loop."""
    similarity: float = Field(default=90.0, ge=50, le=100)
    """Similarity (0-100) above which two messages count as the same."""
    same_error_threshold: int = Field(default=3, ge=2)
    """Identical error signatures that count as a loop."""
    ping_pong_threshold: int = Field(default=4, ge=2)
    """Alternating exchanges between two roles without new outputs that count as a loop."""
    stall_s: float = Field(default=300.0, gt=0)
    """Seconds with no completed task and no new output that count as a stall."""
    drift_threshold: float = Field(default=0.05, ge=0, le=1)
    """Below this word overlap with the goal, a task counts as drifting."""
    model_review: bool = False
    """Also ask the model for a structured review of progress."""


class ReflectorSettings(RoleSettings):
    """The reflector turns failures and critiques into lessons in long-term memory."""

    memory_dir: str = ""
    """Folder of the long-term memory shared across runs (default: runs/memory)."""
    recall: int = Field(default=3, ge=0, le=20)
    """Lessons recalled into a prompt."""


SPECIALIST_NAME = r"^[a-z][a-z0-9_]{0,31}$"
"""What a specialist's name may be: it is a subject token and part of its identity."""


class SpecialistSettings(RoleSettings):
    """A specialist role the scenario declares: who it is and what tasks it takes."""

    name: str = Field(pattern=SPECIALIST_NAME)
    """Its role name (lower-case letters, digits, '_'): tasks name it, the log shows it."""
    takes: str = Field(min_length=1, max_length=300)
    """What kinds of task it takes, in one line: the planner reads it to assign tasks."""
    tools: list[str] = Field(default_factory=list)
    """MCP tools it may call: ``server`` (all its tools) or ``server.tool`` (see ``tools``)."""


class HumanSettings(StrictModel):
    """What needs the human, and what happens when nobody answers."""

    plan_approval: bool = False
    """Ask the human to approve each plan before work starts."""
    questions: bool = False
    """Allow roles to ask the human questions."""
    escalate: bool = True
    """Ask the human when the critic's replans run out (else stop)."""
    timeout_s: float = Field(default=60.0, gt=0)
    """How long a question waits for an answer before the default applies."""
    park_after_s: float | None = Field(default=None, gt=0)
    """When the run has had nothing to do but wait for a person's answer for this long, and
    nobody is attached, it parks: its processes exit, and `society resume` continues it (the
    question waits its whole timeout again). Unset: the run waits, running."""
    rating_window_s: float = Field(default=0.0, ge=0)
    """How long after the final message people may still rate the run's results (the run
    stays up that long while someone is attached); 0: only until the final."""
    approvers: list[str] | None = None
    """The people who may approve or reject plans and answer escalations (unset: anyone
    with a credential for the run)."""
    stoppers: list[str] | None = None
    """The people who may pause, resume or abort the run (unset: anyone with a credential)."""

    def may(self, person: str, power: Literal["approve", "stop"]) -> bool:
        """Whether ``person`` holds ``power`` in this run."""
        allowed = self.approvers if power == "approve" else self.stoppers
        return allowed is None or person in allowed

    def ratings_closed(self, final_ts: int | None, now: float) -> str | None:
        """Why a rating made at ``now`` (Unix s) is too late, given the final's time (Unix
        µs, None: no final yet); None when it is welcome."""
        if final_ts is None or now <= final_ts / 1e6 + self.rating_window_s:
            return None
        closed = final_ts / 1e6 + self.rating_window_s
        at = time.strftime("%H:%M:%S UTC", time.gmtime(closed))
        return (
            f"ratings for this run closed at {at}, {self.rating_window_s:g}s after its final "
            "message (roles.human.rating_window_s)"
        )

    def may_steer(self, person: str, action: str) -> bool:
        """Whether ``person`` may send control ``action`` (never budget stops or cancels)."""
        return action in ("pause", "resume", "abort") and self.may(person, "stop")
