"""What an arm is given and what it gives back: the eval's shared context, the context of
one answer (case, repeat, seed, folder), and the answer record (`Answered`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from bus.verdicts import Drawn
from roles.execution import CodeRunner
from sandbox.manifest import Manifest
from society.eval.graders import Submission
from society.models.spec import ModelSpec

if TYPE_CHECKING:
    from society.eval.suite import Suite
    from society.run.prompt_set import PromptSet

__all__ = [
    "Answered",
    "CallCache",
    "CaseContext",
    "EvalContext",
    "LoopSettings",
    "Reply",
    "VoteSettings",
]


@dataclass
class Answered:
    """What an arm did for a case: its submission and what it cost."""

    submission: Submission
    status: str
    reason: str = ""
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_s: float = 0.0
    run_id: str | None = None
    folder: Path | None = None
    extra: dict[str, JsonValue] = field(default_factory=dict)
    confidence: float | None = None
    """How sure the arm is of the answer, 0-1 (None: it states none)."""
    views: list[str] = field(default_factory=list)
    """The views that gave the answer, in the order drawn (the society's kept group; the
    ``vote`` arm's winning samples); empty for an arm that states none."""
    roles: dict[str, int] = field(default_factory=dict)
    """Model calls per role that made them (the society's; empty for a baseline)."""
    others: list[Drawn] = field(default_factory=list)
    """The other values the arm drew and did not answer with (the society's views, the
    ``vote`` arm's losing groups), graded too: was a right one drawn and not kept?"""


@dataclass(frozen=True)
class Reply:
    """A model's answer to one request, and what it cost the arm that asked it."""

    text: str
    tokens_in: int
    tokens_out: int
    cost: float
    wall_s: float
    arm: str
    """The arm that made the call."""


@dataclass
class CallCache:
    """Answers by request, for one eval."""

    replies: dict[str, Reply] = field(default_factory=dict)


@dataclass(frozen=True)
class LoopSettings:
    """The ``loop`` baseline's limits (defaults: the FINDINGS measurement): repair calls
    after a failed check, then fresh samples at ``temperature``."""

    repairs: int = 2
    samples: int = 3
    temperature: float = 0.8


@dataclass(frozen=True)
class VoteSettings:
    """The ``vote`` baseline: programs sampled at ``temperature``, the majority answer kept
    (set ``samples`` to the society's mean calls per case for a fair comparison)."""

    samples: int = 5
    temperature: float = 0.7


@dataclass
class EvalContext:
    """What every arm of one eval shares."""

    folder: Path
    """The eval's folder: run folders, baseline folders, results."""
    code: CodeRunner
    """The eval's sandbox: the society's coder, the program baselines and the checks."""
    override: ModelSpec | None = None
    """``--model``: every role and baseline calls this model."""
    case_timeout_s: float | None = None
    """At most this long for one run (default: its wall budget plus slack)."""
    loop: LoopSettings = field(default_factory=LoopSettings)
    """The ``loop`` baseline's limits."""
    libraries: Manifest | None = None
    """What the eval's sandbox image holds: every arm's programs are told the same."""
    calls: CallCache | None = None
    """Model answers by request, shared by every arm of the eval (`society.eval.calls`)."""
    seed: int = 0
    """``--seed``: repeat ``r`` of a sampled arm draws from ``seed + 100 * r`` on."""
    memory_from: Path | None = None
    """``--memory``: every case's society starts with a copy of this memory folder's
    database (a copy each, so that cases stay independent of their order)."""
    prompts: PromptSet | None = None
    """``--prompts``: the society's roles use this prompt set's instructions."""
    vote: VoteSettings = field(default_factory=VoteSettings)
    """The ``vote`` baseline's samples."""
    sets: dict[str, Any] = field(default_factory=dict)
    """``--set``: role settings every case's society runs with (`society.eval.overrides`)."""


@dataclass(frozen=True)
class CaseContext:
    """One answer to give: the eval's context, the suite, the repeat, the arm's name."""

    eval: EvalContext
    suite: Suite
    repeat: int = 0
    arm: str = ""

    @property
    def seed(self) -> int:
        """The first seed this answer's samples use."""
        return self.eval.seed + 100 * self.repeat

    def folder(self, case_id: str) -> Path:
        """Where a baseline keeps this answer's files (made on first use)."""
        folder = self.eval.folder / "baselines" / f"{case_id}-{self.arm}-r{self.repeat}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
