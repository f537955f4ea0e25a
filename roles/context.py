"""What a role instance is given by whoever starts it: a `RoleContext`, generic in the
role's settings model, whose collaborators are one frozen, typed `RoleDeps`.

The application (``society.run.assembly``) builds both; a role never builds a collaborator
and never looks one up by name. A collaborator a role needs but was not given is a
clear error where the role first needs it (``None`` here means "not in this process").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from bus import ConnectOptions
from bus.delivery import DeliverySettings
from roles.budget import BudgetSettings, Guard
from roles.execution import CodeRunner
from roles.memory import Corpus, Memory
from roles.model_access import ModelAccess
from roles.settings import HumanSettings, PresenceSettings, RoleSettings, VerifierSettings
from roles.tools import PromptRecorder, ToolBox
from sandbox.manifest import Manifest

__all__ = ["RoleContext", "RoleDeps", "S"]

S = TypeVar("S", bound=RoleSettings)


@dataclass(frozen=True)
class RoleDeps:
    """A role's collaborators; each role uses the ones its module docstring names."""

    model: ModelAccess | None = None
    """The model client and its price (None: this role calls no model)."""
    verifier: VerifierSettings = field(default_factory=VerifierSettings)
    """The verifier's settings, for the role that runs its checks (the coder)."""
    judge: ModelAccess | None = None
    """The verifier's model, when it is not this role's own (None: ``model`` judges too)."""
    guard: Guard | None = None
    """Checked before every model call and sandbox run (shared by a process's roles)."""
    memory: Memory | None = None
    """Long-term memory: lessons recalled into prompts, and where the reflector writes."""
    recall: int = 3
    """Lessons recalled into one prompt."""
    human: HumanSettings = field(default_factory=HumanSettings)
    """What needs a person, and how long a question waits."""
    corpus: Corpus | None = None
    """The researcher's local documents."""
    code: CodeRunner | None = None
    """Where the coder runs programs: the sandbox, or recorded results in a re-run."""
    sandbox_timeout_s: float = 30.0
    """Wall-clock limit of one program run."""
    libraries: Manifest | None = None
    """What the sandbox image holds (the coder's prompt names it; None: not known)."""
    budgets: BudgetSettings = field(default_factory=BudgetSettings)
    """The run's limits (the manager enforces them)."""
    tools: ToolBox | None = None
    """The MCP tools this role may call (None: no tools)."""
    prompts: PromptRecorder | None = None
    """Where every model request is kept (None: not recorded)."""
    capacity: Mapping[str, int] = field(default_factory=dict)
    """Tasks each worker role can take at once as configured (the manager's fallback
    while no live worker has said how much it takes)."""
    specialists: Mapping[str, str] = field(default_factory=dict)
    """The run's specialist roles, and what tasks each takes (one line for the planner)."""


@dataclass(frozen=True)
class RoleContext(Generic[S]):
    """One role instance's identity, connection, settings and collaborators."""

    run_id: str
    connect: ConnectOptions
    settings: S
    instance: str = "0"
    run_dir: Path = field(default_factory=lambda: Path("runs"))
    deps: RoleDeps = field(default_factory=RoleDeps)
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    """How work queues hand out and take back work."""
    presence: PresenceSettings = field(default_factory=PresenceSettings)
    """How often to heartbeat (and, for the manager, how long to wait for a role)."""
