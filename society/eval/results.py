"""An eval's results: one `Record` per (case, arm, repeat), the settings they were made
with, and the totals per arm. Written as JSON after every case, so an eval cut short
keeps what it measured."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ARMS", "Arm", "EvalResults", "GradeRecord", "Record", "Totals", "load_results"]

Arm = Literal["society", "direct", "program", "loop"]
ARMS: tuple[Arm, ...] = ("society", "direct", "program", "loop")

Status = str
"""How an arm ended: the run's final status (succeeded, failed, aborted,
budget_exhausted), ``no final``, ``timeout`` or ``crashed``; a baseline ``succeeded`` when
it answered (its program exited 0 and printed something), else ``failed``."""


class GradeRecord(BaseModel):
    """One grader's verdict."""

    kind: str
    passed: bool
    detail: str


class Record(BaseModel):
    """One case answered by one arm, graded."""

    model_config = ConfigDict(extra="ignore")

    case: str
    arm: Arm
    repeat: int = 0
    passed: bool
    status: Status
    reason: str = ""
    answer: str | None = None
    """The answer graded (cut to 2,000 characters)."""
    grades: list[GradeRecord] = []
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_s: float = 0.0
    run_id: str | None = None
    folder: str | None = None
    """Where the case's files are (the run folder for the society)."""

    @property
    def tokens(self) -> int:
        """Prompt and answer tokens together."""
        return self.tokens_in + self.tokens_out

    @property
    def false_success(self) -> bool:
        """Ended "succeeded", but the graders failed it."""
        return self.status == "succeeded" and not self.passed


class Totals(BaseModel):
    """One arm over every case and repeat."""

    arm: Arm
    cases: int
    passed: int
    false_successes: int
    calls: int
    tokens: int
    wall_s: float
    cost: float

    @property
    def pass_rate(self) -> float:
        """Passed / cases (0 when there were none)."""
        return self.passed / self.cases if self.cases else 0.0

    @property
    def tokens_per_solved(self) -> float | None:
        """Tokens spent per passed case (None when none passed)."""
        return self.tokens / self.passed if self.passed else None

    @property
    def wall_per_solved(self) -> float | None:
        """Seconds spent per passed case (None when none passed)."""
        return self.wall_s / self.passed if self.passed else None

    @property
    def calls_per_solved(self) -> float | None:
        """Model calls per passed case (None when none passed)."""
        return self.calls / self.passed if self.passed else None


class EvalResults(BaseModel):
    """What `society eval` writes."""

    model_config = ConfigDict(extra="ignore")

    suite: str
    suite_path: str = ""
    model: str
    base_url: str | None = None
    arms: list[Arm]
    repeat: int = 1
    only: list[str] = []
    memory: Literal["per-case"] = "per-case"
    """Each case's society starts with empty long-term memory (results do not depend on
    the order of cases)."""
    commit: str = ""
    started: str = ""
    finished: str | None = None
    folder: str = ""
    settings: dict[str, str | int | float | bool | None] = {}
    records: list[Record] = Field(default_factory=list)

    def totals(self) -> list[Totals]:
        """Per arm, in the order the arms were run."""
        out = []
        for arm in self.arms:
            mine = [r for r in self.records if r.arm == arm]
            out.append(
                Totals(
                    arm=arm,
                    cases=len(mine),
                    passed=sum(r.passed for r in mine),
                    false_successes=sum(r.false_success for r in mine),
                    calls=sum(r.calls for r in mine),
                    tokens=sum(r.tokens for r in mine),
                    wall_s=round(sum(r.wall_s for r in mine), 3),
                    cost=sum(r.cost for r in mine),
                )
            )
        return out

    def save(self, path: Path) -> None:
        """Write the results (with totals) atomically."""
        doc = self.model_dump(mode="json")
        doc["totals"] = [
            {
                **t.model_dump(mode="json"),
                "pass_rate": round(t.pass_rate, 4),
                "tokens_per_solved": t.tokens_per_solved,
                "wall_per_solved": t.wall_per_solved,
                "calls_per_solved": t.calls_per_solved,
            }
            for t in self.totals()
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        os.replace(tmp, path)


class ResultsError(ValueError):
    """A results file that cannot be read; says which and why."""


def load_results(path: Path) -> EvalResults:
    """Read a results file written by `society eval`."""
    try:
        return EvalResults.model_validate_json(path.read_text())
    except FileNotFoundError:
        msg = f"{path}: file not found"
        raise ResultsError(msg) from None
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"{path}: cannot read: {exc}"
        raise ResultsError(msg) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = f"{path}: not the results of `society eval` ({where}: {first['msg']})"
        raise ResultsError(msg) from None
