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
from roles.coder.role import Coder
from roles.context import RoleContext, RoleDeps
from roles.critic.critic import Critic
from roles.execution import CodeRunner
from roles.manager.manager import Manager
from roles.memory import Corpus, Memory
from roles.planner import Planner
from roles.reflector import Reflector
from roles.researcher import Researcher
from roles.settings import RoleSettings
from society.models.factory import ModelFactory
from society.prompts import PromptStore
from society.run.in_force import in_force
from society.scenario import WORKER_ROLES, Scenario
from society.tools import Tools

__all__ = [
    "ROLE_CLASSES",
    "Collaborators",
    "SandboxFactory",
    "build_role",
    "capacity",
    "docker_sandbox",
    "needs_model",
]

ROLE_CLASSES: dict[str, type[Role[Any]]] = {
    "manager": Manager,
    "planner": Planner,
    "researcher": Researcher,
    "coder": Coder,
    "critic": Critic,
    "reflector": Reflector,
}


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
    """Tasks each worker role can take at once as configured (instances x concurrency)."""
    result = {}
    for name in WORKER_ROLES:
        s: RoleSettings = getattr(scenario.roles, name)
        result[name] = s.concurrency * s.instances
    return result


def needs_model(name: str, scenario: Scenario) -> bool:
    """Whether the role calls a model (the critic only when its model review is on)."""
    return name in ("planner", "researcher", "coder") or (
        name == "critic" and scenario.roles.critic.model_review
    )


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
    """One instance of role ``name`` for ``run_id`` (not started)."""
    scenario = in_force(scenario)  # the settings in force (idempotent)
    settings: RoleSettings = getattr(scenario.roles, name)
    if concurrency is not None:
        settings = settings.model_copy(update={"concurrency": concurrency})
    deps = RoleDeps(
        model=factory.build(settings.model, name) if needs_model(name, scenario) else None,
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
    return ROLE_CLASSES[name](ctx)
