"""How a role instance is put together from a scenario: its class, its settings, its
model client and its collaborators (memory, corpus, sandbox, budget guard).

The runner (every role in one process) and `society worker` (one role in its own
process) both build roles here, so a role is the same wherever it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bus import ConnectOptions
from roles.base import Role
from roles.budget import Guard
from roles.context import RoleContext, RoleDeps
from roles.execution import CodeRunner
from roles.memory import Corpus, Memory
from roles.registry import REGISTRY, Registration, specialist
from roles.settings import RoleSettings
from society.models.factory import ModelFactory
from society.prompts import PromptStore
from society.run.in_force import in_force
from society.scenario import Scenario
from society.tools import Tools

__all__ = [
    "ROLE_CLASSES",
    "Collaborators",
    "RunRole",
    "SandboxFactory",
    "build_role",
    "capacity",
    "docker_sandbox",
    "needs_model",
    "run_roles",
]

ROLE_CLASSES: dict[str, type[Role[Any]]] = {
    name: reg.cls for name, reg in REGISTRY.items() if reg.cls is not None
}
"""The built-in roles a run starts (`roles.registry`), by name."""


@dataclass(frozen=True)
class RunRole:
    """A role of one run: its registration and its settings in the scenario."""

    registration: Registration
    settings: RoleSettings

    @property
    def name(self) -> str:
        """The role's name."""
        return self.registration.name

    @property
    def instances(self) -> int:
        """How many instances a run starts (several only of roles that take tasks)."""
        return self.settings.instances if self.registration.worker else 1


def run_roles(scenario: Scenario) -> dict[str, RunRole]:
    """Every role a run of ``scenario`` starts: the built-in ones, then its specialists
    (registered now: their work queues and identities exist from here on)."""
    roles = {
        name: RunRole(reg, scenario.roles.settings_of(name))
        for name, reg in REGISTRY.items()
        if reg.cls is not None
    }
    for spec in scenario.specialists:
        roles[spec.name] = RunRole(specialist(spec), spec)
    return roles


SandboxFactory = Callable[[Scenario, str], AbstractAsyncContextManager[CodeRunner]]
"""Makes a process's code runner, given the scenario and the run id."""


def docker_sandbox(scenario: Scenario, run_id: str) -> AbstractAsyncContextManager[CodeRunner]:
    """The hardened Docker sandbox pool (the default code runner), labelled with the run.

    Its containers stop by themselves when closed, and Docker removes them: the process
    does not wait for that, so a run ends as soon as its work is done."""
    from sandbox import Sandbox

    return Sandbox(scenario.sandbox, label=run_id, wait_for_removal=False)


@dataclass
class Collaborators:
    """What the roles of one process share."""

    memory: Memory
    guard: Guard
    corpus: Corpus | None = None
    sandbox: CodeRunner | None = None
    tools: Tools | None = None
    """The scenario's MCP servers, or their recorded results in a re-run."""


def capacity(scenario: Scenario) -> dict[str, int]:
    """Tasks each worker role (specialists too) can take at once as configured (instances
    x concurrency)."""
    return {
        name: role.settings.concurrency * role.settings.instances
        for name, role in run_roles(scenario).items()
        if role.registration.worker
    }


def needs_model(name: str, scenario: Scenario) -> bool:
    """Whether the role calls a model (the critic only when its model review is on)."""
    role = run_roles(scenario).get(name)
    return role is not None and role.registration.calls_model(role.settings)


def build_role(
    name: str,
    scenario: Scenario,
    *,
    run_id: str,
    connect: ConnectOptions,
    instance: str,
    factory: ModelFactory,
    run_dir: Path,
    shared: Collaborators,
    concurrency: int | None = None,
) -> Role[Any]:
    """One instance of role ``name`` (built-in or a specialist) for ``run_id`` (not started)."""
    scenario = in_force(scenario)  # the settings in force (idempotent)
    role = run_roles(scenario)[name]
    settings = role.settings
    if concurrency is not None:
        settings = settings.model_copy(update={"concurrency": concurrency})
    verifier = scenario.roles.verifier
    judged_here = name == "coder"  # the verifier's checks run where the candidates are
    deps = RoleDeps(
        model=factory.build(settings.model, name) if needs_model(name, scenario) else None,
        verifier=verifier,
        judge=(  # recorded in the coder's lane, so replay serves it alike
            factory.build(verifier.model, name)
            if judged_here and verifier.model != settings.model
            else None
        ),
        guard=shared.guard,
        memory=shared.memory,
        recall=scenario.roles.reflector.recall,
        human=scenario.roles.human,
        corpus=shared.corpus,
        code=shared.sandbox,
        sandbox_timeout_s=scenario.sandbox.timeout_s,
        libraries=scenario.sandbox.manifest,
        budgets=scenario.budgets,
        tools=shared.tools.for_role(name) if shared.tools is not None else None,
        prompts=PromptStore(run_dir),
        capacity=capacity(scenario),
        specialists={s.name: s.takes for s in scenario.specialists},
    )
    ctx = RoleContext(
        run_id=run_id,
        connect=connect,
        settings=settings,
        instance=instance,
        run_dir=run_dir,
        deps=deps,
        delivery=scenario.delivery,
        presence=scenario.presence,
    )
    cls = role.registration.cls
    assert cls is not None  # run_roles holds only roles a run starts
    return cls(ctx)
