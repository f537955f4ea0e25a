"""A prompt set: the instructions of the roles whose prompts decide answers (planner, coder,
verifier), as one versioned file with where it came from and the val table that adopted
it. A run that uses one records its id in its scenario, so a re-run and a replay use the
same instructions."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from society.errors import ScenarioError, ScenarioIssue
from society.scenario import Scenario

__all__ = [
    "COMPONENTS",
    "Component",
    "PromptSet",
    "Provenance",
    "ValRow",
    "applied",
    "built_in",
    "load_prompt_set",
    "set_id",
]

Component = Literal["planner", "coder", "verifier"]
COMPONENTS: tuple[Component, ...] = ("planner", "coder", "verifier")


def built_in() -> dict[str, str]:
    """The roles' built-in instructions (what training starts from)."""
    from roles.coder.instructions import SYSTEM as CODER  # the roles load only when asked
    from roles.planner import SYSTEM as PLANNER
    from roles.verifier.spec import SYSTEM as VERIFIER

    return {"planner": PLANNER, "coder": CODER, "verifier": VERIFIER}


def set_id(instructions: dict[str, str]) -> str:
    """The id of a set of instructions: the first 12 hex digits of their sha256."""
    text = json.dumps(instructions, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ValRow(_Strict):
    """One arm's figures on the val split."""

    cases: int
    right: int
    false_successes: int
    calls: int = 0
    tokens: int = 0


class Provenance(_Strict):
    """Where a prompt set came from."""

    command: str = ""
    model: str = ""
    reflection_model: str = ""
    suite: str = ""
    commit: str = ""
    created: str = ""
    metric_calls: int = 0
    """Case runs the training spent (GEPA's metric calls)."""
    wall_s: float = 0.0
    val_before: ValRow | None = None
    """The built-in instructions (or the set trained from) on val."""
    val_after: ValRow | None = None
    """This set on val (the same cases, model and settings)."""


class PromptSet(_Strict):
    """Instructions per role, with their id and provenance."""

    version: Literal[1] = 1
    id: str = Field(default="", pattern=r"^[0-9a-f]{12}$|^$")
    instructions: dict[Component, str] = Field(min_length=1)
    """The roles' instructions; a role not named keeps its built-in ones."""
    made: Provenance = Provenance()

    def with_id(self) -> PromptSet:
        """This set with ``id`` computed from its instructions."""
        return self.model_copy(
            update={"id": set_id({str(k): v for k, v in self.instructions.items()})}
        )

    def save(self, path: Path) -> None:
        """Write the set as JSON (atomically)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(self.with_id().model_dump_json(indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)


def load_prompt_set(path: Path) -> PromptSet:
    """Read a prompt set file; a `ScenarioError` names the file and the field that is wrong,
    and an id that does not match the instructions (a hand edit) is one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError([ScenarioIssue(path, None, "", "file not found")]) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError([ScenarioIssue(path, exc.lineno, "", f"not JSON: {exc.msg}")]) from None
    try:
        loaded = PromptSet.model_validate(data)
    except ValidationError as exc:
        issues = [
            ScenarioIssue(path, None, ".".join(str(p) for p in e["loc"]), e["msg"])
            for e in exc.errors()
        ]
        raise ScenarioError(issues) from None
    if loaded.id and loaded.id != set_id({str(k): v for k, v in loaded.instructions.items()}):
        why = "does not match the instructions (edited by hand? remove it to accept the edit)"
        raise ScenarioError([ScenarioIssue(path, None, "id", why)])
    return loaded.with_id()


def applied(scenario: Scenario, prompts: PromptSet) -> Scenario:
    """``scenario`` with the set's instructions in its roles' settings and its id recorded."""
    roles = scenario.roles
    planner, coder, verifier = roles.planner, roles.coder, roles.verifier
    given = prompts.instructions
    if "planner" in given:
        planner = planner.model_copy(update={"instructions": given["planner"]})
    if "coder" in given:
        coder = coder.model_copy(update={"instructions": given["coder"]})
    if "verifier" in given:
        verifier = verifier.model_copy(update={"instructions": given["verifier"]})
    roles = roles.model_copy(update={"planner": planner, "coder": coder, "verifier": verifier})
    return scenario.model_copy(update={"roles": roles, "prompt_set": prompts.with_id().id})
