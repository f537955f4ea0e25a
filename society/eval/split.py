"""A suite's train/val split, drawn once with a fixed seed and the same on every machine.

Per kind, the cases a suite file does not pin (``split: train``) are ordered by id,
shuffled with ``random.Random(f"{seed}:{kind}")``, and the first go to ``val`` until the
kind's ``val`` share (of all its cases, pinned ones counted) is reached; every kind with two
cases or more has at least one in each half. Adding a case to one kind redraws that kind
only; a case someone has looked at is pinned to ``train`` so that no redraw moves it to val.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Split", "SplitSpec", "draw_split"]

Split = Literal["train", "val"]
"""Which half of a split suite a case is in: changes are made looking at ``train``; ``val``
is run once a change is done, and reported."""


class SplitSpec(BaseModel):
    """How a suite's cases are split: per kind, the cases not pinned by their own ``split``
    are shuffled with ``seed`` and the first ``val`` share (of the whole kind) go to val."""

    model_config = ConfigDict(extra="forbid")

    seed: int
    val: float = Field(default=0.4, gt=0, lt=1)


class _Case(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def split(self) -> Split | None: ...


def draw_split(cases: Sequence[_Case], spec: SplitSpec) -> dict[str, Split]:
    """Each case's half (by id)."""
    halves: dict[str, Split] = {}
    kinds = dict.fromkeys(c.kind or "" for c in cases)
    for kind in kinds:
        group = [c for c in cases if (c.kind or "") == kind]
        want = round(len(group) * spec.val)
        if len(group) >= 2:
            want = min(max(want, 1), len(group) - 1)
        pinned_val = sum(c.split == "val" for c in group)
        free = sorted(c.id for c in group if c.split is None)
        random.Random(f"{spec.seed}:{kind}").shuffle(free)
        val = set(free[: max(0, want - pinned_val)])
        for c in group:
            halves[c.id] = c.split or ("val" if c.id in val else "train")
    return halves
