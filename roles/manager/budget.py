"""Budgets: the limits a run can never exceed, and the tracker the manager checks them with.

Every spend is reported by a usage message; the manager adds it here and asks `check`
before dispatching more work. The tracker raises `BudgetExceeded` with the numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pydantic import Field

from roles.errors import BudgetExceeded
from roles.settings import StrictModel

__all__ = ["BudgetSettings", "BudgetTracker", "Spend"]


class BudgetSettings(StrictModel):
    """Limits of one run; ``null`` means no limit. The defaults are safe, not unlimited."""

    wall_s: float | None = Field(default=1800.0, gt=0)
    """Wall-clock seconds from the goal to the final message."""
    tokens: int | None = Field(default=None, gt=0)
    """Model tokens, in and out together."""
    tokens_in: int | None = Field(default=None, gt=0)
    tokens_out: int | None = Field(default=None, gt=0)
    cost: float | None = Field(default=None, gt=0)
    """Money, from the models' price tables."""
    currency: str = "USD"
    calls: int | None = Field(default=500, gt=0)
    """Model calls."""
    sandbox_s: float | None = Field(default=600.0, gt=0)
    """Seconds of code execution in the sandbox."""
    replans: int = Field(default=2, ge=0, le=50)
    """Plan revisions after the first."""


@dataclass
class Spend:
    """What a run has used so far."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    calls: int = 0
    sandbox_s: float = 0.0
    replans: int = 0

    @property
    def tokens(self) -> int:
        """Tokens in and out together."""
        return self.tokens_in + self.tokens_out


@dataclass
class BudgetTracker:
    """Adds up usage and says which budget, if any, is spent."""

    settings: BudgetSettings
    started: float = field(default_factory=time.monotonic)
    spend: Spend = field(default_factory=Spend)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def add_model_call(self, tokens_in: int, tokens_out: int, cost: float) -> None:
        """Record one model call."""
        self.spend.calls += 1
        self.spend.tokens_in += tokens_in
        self.spend.tokens_out += tokens_out
        self.spend.cost += cost

    def add_sandbox(self, seconds: float) -> None:
        """Record sandbox time."""
        self.spend.sandbox_s += seconds

    def exhausted(self) -> str | None:
        """The first budget that is used up, as a sentence with the numbers, else None."""
        s, u = self.settings, self.spend
        checks: list[tuple[str, float | None, float]] = [
            ("wall_s", s.wall_s, self.elapsed()),
            ("tokens", s.tokens, u.tokens),
            ("tokens_in", s.tokens_in, u.tokens_in),
            ("tokens_out", s.tokens_out, u.tokens_out),
            ("cost", s.cost, u.cost),
            ("calls", s.calls, u.calls),
            ("sandbox_s", s.sandbox_s, u.sandbox_s),
        ]
        for name, limit, used in checks:
            if limit is not None and used >= limit:
                return f"budget {name}={limit:,g} is spent (used {used:,.6g})"
        return None

    def check(self) -> None:
        """Raise `BudgetExceeded` when a budget is used up."""
        reason = self.exhausted()
        if reason is not None:
            raise BudgetExceeded(reason)

    def can_replan(self) -> bool:
        """Whether another plan revision is allowed."""
        return self.spend.replans < self.settings.replans

    def report(self) -> dict[str, tuple[float, float | None]]:
        """Each budget as (used, limit) for the live view and the summary."""
        s, u = self.settings, self.spend
        return {
            "wall_s": (round(self.elapsed(), 1), s.wall_s),
            "tokens": (u.tokens, s.tokens),
            "cost": (round(u.cost, 6), s.cost),
            "calls": (u.calls, s.calls),
            "sandbox_s": (round(u.sandbox_s, 2), s.sandbox_s),
            "replans": (u.replans, s.replans),
        }
