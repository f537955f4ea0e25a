"""One shape for every check of an answer: what was checked, on which candidate, whether it
passed, whether it was written without seeing the candidate, and the messages that show it.
A run's final status follows from these values by one rule (`roles.verifier.rule`), never
from the wording of a sentence."""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from bus.execution import Artifact
from bus.payload_base import _Model

__all__ = ["CheckKind", "CheckVerdict", "Confidence", "Drawn", "Level", "Verdict"]

CheckKind = Literal[
    "property", "examples", "agreement", "views", "goal_check", "sources", "grounding"
]
"""- ``property``: a check program the verifier wrote from the goal alone, before any candidate;
- ``examples``: the examples the goal itself states (a function's docstring);
- ``agreement``: another candidate of the same view (a second program), drawn apart, gave
  the same values — one model, one kind of reasoning: it can misread a goal twice alike;
- ``views``: answers reached in ways that fail differently (a program, a worked answer in
  prose) gave the same values;
- ``goal_check``: a program answering the whole goal on its own agrees with the plan's answer;
- ``sources``: the researcher's answer cites passages it read;
- ``grounding``: every value the researcher quoted stands in the documents where it says
  (checked by code; necessary, not sufficient, so never independent).
A program that merely ran checks nothing, so it gives no verdict."""


class CheckVerdict(_Model):
    """One check of one candidate answer."""

    kind: CheckKind
    what: str
    """What was checked, or what is wrong, in one sentence for the person."""
    candidate: str = ""
    """Which candidate: the id of its execution's result, or a task id."""
    passed: bool
    independent: bool
    """Written without seeing the candidate (an answer is `succeeded` only when one such
    check passed, and no check failed)."""
    evidence: list[str] = []
    """Ids of the messages the check rests on (its executions)."""


class Drawn(_Model):
    """Another value a task's views gave, whole: the views that gave it and what the
    verifier's check, written from the goal, said of it (``none``: no usable check)."""

    value: str
    views: list[str] = []
    check: Literal["passed", "failed", "none"] = "none"


class Confidence(_Model):
    """How sure the answer is, from its views: which views gave its value, its share of every
    candidate (a second candidate of one view counts half), and the score (0-1) the two make
    (`roles.verifier.confidence`)."""

    score: float
    views: list[str] = []
    """The views whose answers agree with it ("program", "prose", ...), in the order drawn."""
    share: float = 0.0
    candidates: int = 0
    """Candidates drawn (the answers that ran or were read)."""
    alternatives: list[str] = []
    """The other values the views gave, each with the views that gave it."""
    others: list[Drawn] = []
    """The same, whole (to 1,000 characters) and with the check's word on each: what an eval
    grades to tell a right answer drawn and not kept from one never drawn."""


class Level(_Model):
    """A candidate that ranked level with the one a task kept (no group of values was ahead):
    its outputs, files, verdicts and confidence, as they would have been had it been kept, so
    that a check of the whole goal agreeing with it can pick it (`roles.manager.final`)."""

    outputs: dict[str, JsonValue] = {}
    artifacts: list[Artifact] = []
    verdicts: list[CheckVerdict] = []
    confidence: Confidence | None = None


class Verdict(_Model):
    """Whether a run's answer was checked, how, and the messages that show it."""

    verified: bool
    checks: list[str] = []
    """What was checked, one sentence each; a failed check says what is wrong."""
    evidence: list[str] = []
    """Ids of the messages the checks rest on (results, executions)."""
    verdicts: list[CheckVerdict] = []
    """The checks of the answer the status follows from."""
    confidence: Confidence | None = None
    """The least confidence of the tasks the answer comes from (None: none stated one)."""
