"""An eval's results: one `Record` per (case, arm, repeat), the settings they were made
with, and the totals per arm. Written as JSON after every case, so an eval cut short
keeps what it measured."""

from __future__ import annotations

import json
import math
import os
import statistics
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from society.eval.graders import Grade

__all__ = [
    "EvalResults",
    "Other",
    "Record",
    "ResultsError",
    "Totals",
    "load_results",
    "merged",
    "resumed",
]

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)
"""Student's t, two-sided 95 %, for 1 to 10 degrees of freedom (1.96 beyond)."""

Status = str
"""How an arm ended: the run's final status (succeeded, failed, aborted,
budget_exhausted), ``no final``, ``timeout`` or ``crashed``; a baseline ``succeeded`` when
it answered (its program exited 0 and printed something), else ``failed``."""


class Other(BaseModel):
    """A value the arm drew and did not answer with, graded as the answer is (its text alone:
    a grader of outputs or files finds none), with the views that gave it and what the
    verifier's check said of it."""

    value: str
    views: list[str] = []
    check: str = "none"
    passed: bool


class Record(BaseModel):
    """One case answered by one arm, graded."""

    model_config = ConfigDict(extra="ignore")

    case: str
    kind: str | None = None
    arm: str
    repeat: int = 0
    passed: bool
    status: Status
    reason: str = ""
    answer: str | None = None
    """The answer graded (cut to 2,000 characters)."""
    grades: list[Grade] = []
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_s: float = 0.0
    run_id: str | None = None
    folder: str | None = None
    """Where the case's files are (the run folder for the society)."""
    confidence: float | None = None
    """How sure the arm was of its answer, 0-1 (the society: its views' agreement; ``vote``:
    the winning share); None when the arm states none (`society.eval.risk`)."""
    views: list[str] = []
    """The views that gave the answer, in the order drawn (the society's kept group, e.g.
    ``["program", "plain"]``; the ``vote`` arm's winning samples): with `others`, which way
    a tie went."""
    roles: dict[str, int] = {}
    """The society's model calls per role that made them: which roles did work."""
    others: list[Other] = []
    """The other values it drew, graded: a right one here and a wrong answer is a right
    answer drawn and not kept (a fault of choosing, not of drawing)."""

    @property
    def tokens(self) -> int:
        """Prompt and answer tokens together."""
        return self.tokens_in + self.tokens_out

    @property
    def drawn_right(self) -> bool:
        """Whether a right value was drawn: the answer, or another value it drew."""
        return self.passed or any(o.passed for o in self.others)

    @property
    def false_success(self) -> bool:
        """Ended "succeeded", but the graders failed it."""
        return self.status == "succeeded" and not self.passed


class Totals(BaseModel):
    """One arm over every case and repeat."""

    arm: str
    cases: int
    passed: int
    false_successes: int
    calls: int
    tokens: int
    wall_s: float
    cost: float
    rates: list[float] = []
    """The pass rate of each repeat (over its cases)."""

    @property
    def pass_rate(self) -> float:
        """Passed / cases (0 when there were none)."""
        return self.passed / self.cases if self.cases else 0.0

    @property
    def spread(self) -> float | None:
        """The standard deviation of the repeats' pass rates (None with one repeat)."""
        return statistics.stdev(self.rates) if len(self.rates) >= 2 else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """A 95 % interval of the pass rate: Student's t over the repeats when there are
        several, else Wilson's score interval over the cases of the one run."""
        n = len(self.rates)
        if n >= 2:
            mean = statistics.fmean(self.rates)
            t = _T975[n - 2] if n - 2 < len(_T975) else 1.96
            half = t * statistics.stdev(self.rates) / math.sqrt(n)
            return max(0.0, mean - half), min(1.0, mean + half)
        if not self.cases:
            return None
        z, k, p = 1.96, self.cases, self.pass_rate
        centre = (p + z * z / (2 * k)) / (1 + z * z / k)
        half = z * math.sqrt(p * (1 - p) / k + z * z / (4 * k * k)) / (1 + z * z / k)
        return max(0.0, centre - half), min(1.0, centre + half)

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
    arms: list[str]
    repeat: int = 1
    only: list[str] = []
    split: Literal["train", "val"] | None = None
    """The half of a split suite that was run (None: every case)."""
    seed: int = 0
    """The sampled arms' first seed (repeat ``r`` draws from ``seed + 100 * r``)."""
    memory: str = "per-case"
    """Each case's society starts with its own long-term memory, empty (``per-case``) or a
    copy of ``--memory`` (``per-case from <folder>``): results do not depend on the order
    of cases."""
    prompts: str = ""
    """The id of the prompt set the society used (empty: the built-in instructions)."""
    commit: str = ""
    started: str = ""
    finished: str | None = None
    folder: str = ""
    settings: dict[str, str | int | float | bool | None] = {}
    records: list[Record] = Field(default_factory=list)

    def totals(self, kind: str | None = None) -> list[Totals]:
        """Per arm, in the order the arms were run (of one kind of case when given)."""
        out = []
        for arm in self.arms:
            mine = [r for r in self.records if r.arm == arm and kind in (None, r.kind)]
            repeats = sorted({r.repeat for r in mine})
            rates = []
            for rep in repeats:
                these = [r for r in mine if r.repeat == rep]
                rates.append(sum(r.passed for r in these) / len(these))
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
                    rates=rates,
                )
            )
        return out

    def kinds(self) -> list[str]:
        """The kinds of the cases answered, in first-seen order."""
        return list(dict.fromkeys(r.kind for r in self.records if r.kind))

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
                "spread": t.spread,
                "interval95": t.interval,
            }
            for t in self.totals()
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        os.replace(tmp, path)


def merged(parts: list[EvalResults]) -> EvalResults:
    """One eval of several run apart (arms on separate model servers, at one commit): the
    same suite, split, model and commit, no answer twice. Raises `ResultsError` saying what
    differs."""
    first = parts[0]
    for other in parts[1:]:
        for name in ("suite", "split", "model", "commit", "repeat"):
            if getattr(other, name) != getattr(first, name):
                msg = f"not merged: the evals differ in {name} ({getattr(first, name)!r} and {getattr(other, name)!r})"
                raise ResultsError(msg)
    seen: set[tuple[str, str, int]] = set()
    for part in parts:
        for r in part.records:
            key = (r.case, r.arm, r.repeat)
            if key in seen:
                msg = f"not merged: {r.case} by {r.arm} (repeat {r.repeat}) is in two evals"
                raise ResultsError(msg)
            seen.add(key)
    arms = list(dict.fromkeys(a for p in parts for a in p.arms))
    return first.model_copy(
        update={
            "arms": arms,
            "records": [r for p in parts for r in p.records],
            "folder": " + ".join(p.folder for p in parts),
            "finished": max((p.finished or "" for p in parts), default="") or None,
            "settings": {k: v for p in parts for k, v in p.settings.items()},
        }
    )


_SAME = ("suite", "split", "model", "commit", "repeat", "seed", "memory", "prompts")
"""What an eval carried on must share with the one it carries on: its records and the new
ones are then one eval's."""


def resumed(prior: EvalResults, fresh: EvalResults) -> EvalResults:
    """``fresh`` (an eval about to start) carrying on ``prior`` (the results it writes to, cut
    short, or run with other arms): ``prior``'s records kept, its arms first, its start; the
    cases answered by either. Raises `ResultsError` saying what differs: the suite, split,
    model, commit, repeat, seed, memory or prompts, or a setting both give otherwise."""
    for name in _SAME:
        if getattr(prior, name) != getattr(fresh, name):
            msg = (
                f"not resumed: the results were made with {name} {getattr(prior, name)!r}, "
                f"this eval has {getattr(fresh, name)!r}"
            )
            raise ResultsError(msg)
    for key in prior.settings.keys() & fresh.settings.keys():
        if prior.settings[key] != fresh.settings[key]:
            msg = (
                f"not resumed: the results were made with {key} {prior.settings[key]!r}, "
                f"this eval has {fresh.settings[key]!r}"
            )
            raise ResultsError(msg)
    only = [] if not (prior.only and fresh.only) else list(dict.fromkeys(prior.only + fresh.only))
    return fresh.model_copy(
        update={
            "arms": list(dict.fromkeys(prior.arms + fresh.arms)),
            "only": only,
            "started": prior.started,
            "folder": f"{prior.folder} + {fresh.folder}",
            "settings": {**prior.settings, **fresh.settings},
            "records": list(prior.records),
        }
    )


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
