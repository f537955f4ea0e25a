"""How to run a scenario: the options of `society.run.runner.run_scenario` and the factories
they take (kept apart so the runner's helpers can share them without importing the runner)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bus import ConnectOptions
from society.models.factory import ModelFactory
from society.models.spec import ModelSpec
from society.run.assembly import SandboxFactory
from society.scenario import Scenario
from society.tools import Tools

__all__ = ["Companion", "ModelFactoryMaker", "RunOptions", "ToolsMaker"]

ModelFactoryMaker = Callable[[Scenario, dict[str, ModelSpec]], ModelFactory]
"""Makes the roles' model clients, given the scenario and its models (after --model)."""
ToolsMaker = Callable[[Scenario], AbstractAsyncContextManager[Tools]]
"""Gives the roles' tools for the run's lifetime."""
Companion = Callable[[ConnectOptions, str], AbstractAsyncContextManager[object]]
"""Something that joins a run beside the roles, given the connection and the run id."""


@dataclass
class RunOptions:
    """How to run a scenario."""

    nats_url: str | None = None
    runs_dir: Path = Path("runs")
    run_id: str | None = None
    model_override: ModelSpec | None = None
    memory_dir: Path | None = None
    live: bool = True
    sandbox_factory: SandboxFactory | None = None
    """The code runner (default: the hardened Docker sandbox pool of this run)."""
    model_factory: ModelFactoryMaker | None = None
    """The model clients (default: the scenario's models, scripted answers included)."""
    tools_factory: ToolsMaker | None = None
    """The roles' tools (default: the scenario's MCP servers, started for the run)."""
    origin: str | None = None
    grace_s: float = 30.0
    """How long past the wall-clock budget the runner waits for the final message."""
    human: str | None = None
    """Make this terminal the run's human under this name ('' for the login name)."""
    companions: list[Companion] = field(default_factory=list)
    """Joined before the goal is sent, left at the end (a re-run's recorded people)."""
    workers: Literal["inprocess", "external"] = "inprocess"
    """Run every role here, or only the manager and wait for `society worker` processes."""
    stream_replicas: int = 1
    """Replicas of the run-log stream when this run creates it (3 on a 3-node cluster)."""
    resume: bool = False
    """Continue run ``run_id``, whose processes stopped, from its log (`society resume`)."""
    sandbox_manifest: bool = True
    """Read what the sandbox image holds at the start when the scenario does not say (off
    for a re-run: its recorded scenario says, and it contacts no Docker daemon)."""
