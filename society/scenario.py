"""The scenario: a goal, the roles and their models, budgets and sandbox limits.

A scenario is composed of each role's own settings model. Loading it never raises a
traceback at the user: every problem becomes a `ScenarioIssue` naming the file, the line
and the field (unknown keys included, so a typo never passes silently).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from bus.deliverable import Deliverable
from bus.delivery import DeliverySettings
from roles.budget import BudgetSettings
from roles.registry import REGISTRY
from roles.settings import (
    CoderSettings,
    CriticSettings,
    HumanSettings,
    ManagerSettings,
    PlannerSettings,
    PresenceSettings,
    ReflectorSettings,
    ResearcherSettings,
    RoleSettings,
    SpecialistSettings,
    VerifierSettings,
)
from sandbox.settings import SandboxSettings
from society.errors import ScenarioError, ScenarioIssue
from society.models.spec import ModelSpec, ScriptedAnswer
from society.tools.spec import ToolServerSpec
from society.yaml_source import YamlLimitError, YamlSource, load_yaml

__all__ = ["TOOL_ROLES", "WORKER_ROLES", "GoalSpec", "RolesSpec", "Scenario", "load_scenario"]

WORKER_ROLES = tuple(r.name for r in REGISTRY.values() if r.worker)
"""Built-in roles a plan may assign tasks to (the others steer the run; `roles.registry`)."""
TOOL_ROLES = tuple(r.name for r in REGISTRY.values() if r.tools)
"""Built-in roles that may call MCP tools."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GoalSpec(_Strict):
    """The goal of the run."""

    text: str = Field(min_length=1)
    """What the society should achieve."""
    inputs: dict[str, JsonValue] = {}
    """Named values given with the goal."""
    deliverable: Deliverable | None = None
    """The answer is a Python function (its name, and its stub: signature and docstring),
    written by one coding task and checked by its docstring's examples."""


class RolesSpec(_Strict):
    """Settings of each role; a role left out gets its defaults.

    A field per registered role with settings (`roles.registry`), typed so that code reads
    ``roles.coder.max_attempts`` checked; `_check_registry` holds the two to each other."""

    manager: ManagerSettings = ManagerSettings()
    planner: PlannerSettings = PlannerSettings()
    researcher: ResearcherSettings = ResearcherSettings()
    coder: CoderSettings = CoderSettings()
    verifier: VerifierSettings = VerifierSettings()
    critic: CriticSettings = CriticSettings()
    reflector: ReflectorSettings = ReflectorSettings()
    human: HumanSettings = HumanSettings()

    def settings_of(self, name: str) -> RoleSettings:
        """The settings of the built-in role ``name``."""
        settings: RoleSettings = getattr(self, name)
        return settings

    def model_names(self) -> dict[str, str]:
        """Which model each model-using role calls."""
        return {
            name: self.settings_of(name).model
            for name, reg in REGISTRY.items()
            if reg.settings is not None and issubclass(reg.settings, RoleSettings)
        }


def _check_registry() -> None:
    """Every registered role with settings is a ``roles`` key, and every key a role."""
    fields = set(RolesSpec.model_fields)
    registered = {name for name, reg in REGISTRY.items() if reg.settings is not None}
    if fields != registered:
        msg = f"RolesSpec and roles.registry disagree: {sorted(fields ^ registered)}"
        raise RuntimeError(msg)
    for name in fields:
        if RolesSpec.model_fields[name].annotation is not REGISTRY[name].settings:
            msg = f"roles.{name} is not of its registered settings model"
            raise RuntimeError(msg)


_check_registry()


class Scenario(_Strict):
    """A whole scenario file."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_-]+$")
    """Short name (letters, digits, '_' and '-'); run ids start with it."""
    description: str = ""
    goal: GoalSpec
    models: dict[str, ModelSpec] = {"default": ModelSpec()}
    """Model clients by name; roles refer to them by name."""
    roles: RolesSpec = RolesSpec()
    specialists: list[SpecialistSettings] = []
    """Roles of this scenario's own: each with a name, instructions, a model, tools, and a
    line saying what tasks it takes; the planner may give them tasks."""
    budgets: BudgetSettings = BudgetSettings()
    sandbox: SandboxSettings = SandboxSettings()
    delivery: DeliverySettings = DeliverySettings()
    """How tasks are handed to workers and taken back from ones that die."""
    presence: PresenceSettings = PresenceSettings()
    """Worker heartbeats, and how long the manager waits for a missing role."""
    tools: dict[str, ToolServerSpec] = {}
    """MCP servers by name; roles name the tools they may call in ``roles.<role>.tools``."""
    script: dict[str, list[ScriptedAnswer]] | str = {}
    """Scripted model answers per role, inline or in a YAML file beside the scenario."""
    prompt_set: str = ""
    """The id of the prompt set whose instructions the roles use (``--prompts``); empty:
    the built-in ones."""
    base_dir: Path = Field(default=Path("."), exclude=True)
    """Folder of the scenario file (relative paths resolve from it); not a YAML key."""

    def tool_uses(self) -> dict[str, list[str]]:
        """The ``tools`` entries of each role (and specialist) that names some."""
        uses = {
            name: list(getattr(self.roles, name).tools)
            for name in TOOL_ROLES
            if getattr(self.roles, name).tools
        }
        uses.update({s.name: list(s.tools) for s in self.specialists if s.tools})
        return uses

    def model_uses(self) -> dict[str, str]:
        """Which model each role calls, specialists included."""
        return {**self.roles.model_names(), **{s.name: s.model for s in self.specialists}}

    def where_role(self, name: str) -> tuple[str | int, ...]:
        """Where role ``name``'s settings are in the file: ``roles.<name>``, or its
        entry under ``specialists``."""
        for i, spec in enumerate(self.specialists):
            if spec.name == name:
                return ("specialists", i)
        return ("roles", name)

    def scripted_answers(self) -> dict[str, list[ScriptedAnswer]]:
        """The scripted answers (loaded when they live in a separate file)."""
        if isinstance(self.script, dict):
            return self.script
        return _load_script(self.base_dir / self.script)


def _issues_from(exc: ValidationError, source: YamlSource) -> list[ScenarioIssue]:
    issues = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        field = ".".join(str(p) for p in loc)
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown key (check the spelling; unknown keys are not allowed)"
        issues.append(ScenarioIssue(source.path, source.line_of(loc), field, message))
    return issues


def _cross_check(scenario: Scenario, source: YamlSource) -> list[ScenarioIssue]:
    issues = []
    for role, model in scenario.model_uses().items():
        if model not in scenario.models:
            loc = (*scenario.where_role(role), "model")
            known = ", ".join(sorted(scenario.models)) or "none"
            issues.append(
                ScenarioIssue(
                    source.path,
                    source.line_of(loc),
                    ".".join(str(p) for p in loc),
                    f"no model named {model!r} in models (known: {known})",
                )
            )
    for role, entries in scenario.tool_uses().items():
        for i, entry in enumerate(entries):
            server = entry.partition(".")[0]
            if server not in scenario.tools:
                where = (*scenario.where_role(role), "tools", i)
                known = ", ".join(sorted(scenario.tools)) or "none declared under tools"
                issues.append(
                    ScenarioIssue(
                        source.path,
                        source.line_of(where),
                        ".".join(str(p) for p in where),
                        f"no MCP server named {server!r} (known: {known})",
                    )
                )
    issues += _specialist_names(scenario, source)
    if isinstance(scenario.script, str) and not (scenario.base_dir / scenario.script).is_file():
        issues.append(
            ScenarioIssue(
                source.path,
                source.line_of(("script",)),
                "script",
                f"script file {scenario.script!r} not found beside the scenario",
            )
        )
    return issues


def _specialist_names(scenario: Scenario, source: YamlSource) -> list[ScenarioIssue]:
    """A specialist's name is its own: no built-in role's, no other specialist's."""
    issues, seen = [], set()
    for i, spec in enumerate(scenario.specialists):
        why = None
        if spec.name in REGISTRY:
            why = f"{spec.name!r} is a built-in role; give the specialist a name of its own"
        elif spec.name in seen:
            why = f"another specialist is named {spec.name!r} already"
        seen.add(spec.name)
        if why is not None:
            loc = ("specialists", i, "name")
            field = f"specialists.{i}.name"
            issues.append(ScenarioIssue(source.path, source.line_of(loc), field, why))
    return issues


def _error(path: Path, line: int | None, message: str, field: str = "") -> ScenarioError:
    return ScenarioError([ScenarioIssue(path, line, field, message)])


def _load_script(path: Path) -> dict[str, list[ScriptedAnswer]]:
    source = _read(path)
    try:
        data = source.data or {}
        if not isinstance(data, dict):
            raise ScenarioError(
                [ScenarioIssue(path, 1, "", "a script file maps role names to lists of answers")]
            )
        return {
            str(role): [ScriptedAnswer.model_validate(a) for a in answers or []]
            for role, answers in data.items()
        }
    except ValidationError as exc:
        raise ScenarioError(_issues_from(exc, source)) from None


def _read(path: Path) -> YamlSource:
    try:
        return load_yaml(path)
    except FileNotFoundError:
        raise ScenarioError([ScenarioIssue(path, None, "", "file not found")]) from None
    except IsADirectoryError:
        raise ScenarioError(
            [ScenarioIssue(path, None, "", "is a folder, not a scenario file")]
        ) from None
    except OSError as exc:
        raise ScenarioError(
            [ScenarioIssue(path, None, "", f"cannot read: {exc.strerror}")]
        ) from None
    except UnicodeDecodeError:
        raise ScenarioError([ScenarioIssue(path, None, "", "not UTF-8 text")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        if not isinstance(exc, YamlLimitError):
            problem = f"invalid YAML: {problem}"
        raise _error(path, line, problem) from None


def load_scenario(path: Path | str, *, check_script: bool = True) -> Scenario:
    """Load and validate a scenario file; raises `ScenarioError` listing every problem."""
    path = Path(path)
    source = _read(path)
    data: Any = source.data
    if not isinstance(data, dict):
        raise ScenarioError(
            [ScenarioIssue(path, 1, "", "a scenario is a YAML mapping (key: value)")]
        )
    if "base_dir" in data:
        raise ScenarioError(
            [ScenarioIssue(path, source.line_of(("base_dir",)), "base_dir", "unknown key")]
        )
    try:
        scenario = Scenario.model_validate({**data, "base_dir": path.resolve().parent})
    except ValidationError as exc:
        raise ScenarioError(_issues_from(exc, source)) from None
    issues = _cross_check(scenario, source)
    if issues:
        raise ScenarioError(issues)
    if check_script:
        scenario.scripted_answers()
    return scenario
