"""Budgets: a run's limits, what it has spent, and the two places that hold it to them.

- `BudgetSettings`: the limits (the scenario's ``budgets``).
- `Spend`: what was used. `Spend.add_usage` folds a usage message: the manager's
  `BudgetTracker` and the live view (``society.view.progress``) fold the same messages with
  it, so they show the same numbers.
- `Guard`: checked *before* every model call, tool call and sandbox run. `BudgetGuard`
  holds the run's budget in one process (the runner's); a worker process asks it over NATS
  (`roles.shared_budget.RemoteGuard`), so reservations are one across processes. A call
  reserves what it may use (1 call; its prompt tokens, counted before sending; the largest
  answer seen so far; the matching cost) and settles the real figures after. A call that
  would cross a limit only beside what is in flight waits for that to settle; one that
  what is used leaves no room for is refused. So the calls limit is exact, tokens and cost
  can only be overshot by how much an answer exceeds the largest one seen before (about
  one call's output), and sandbox runs reserve their whole timeout (the timeout kills), so
  sandbox seconds are never exceeded.
- `BudgetTracker`: the manager's view from usage messages and the wall clock; it names
  the first budget that is spent, and the manager stops the run on it.

A budget stop is a typed value wherever it travels: `BudgetExceeded` (name, limit, used)
inside a process, ``status="budget_exhausted"`` on a task result or a plan.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import Field

from bus.payloads import ToolCall, Usage
from roles.errors import BudgetExceeded
from roles.settings import StrictModel

__all__ = [
    "BudgetGuard",
    "BudgetSettings",
    "BudgetTracker",
    "Guard",
    "Spend",
    "first_exceeded",
]


class BudgetSettings(StrictModel):
    """Limits of one run; ``null`` means no limit. The defaults are safe, not unlimited."""

    wall_s: float | None = Field(default=1800.0, gt=0)
    """Wall-clock seconds from the goal to the final message."""
    tokens: int | None = Field(default=None, gt=0)
    """Model tokens, in and out together."""
    tokens_in: int | None = Field(default=None, gt=0)
    tokens_out: int | None = Field(default=None, gt=0)
    cost: float | None = Field(default=None, gt=0)
    """Money, from the models' price tables (prices are per million tokens)."""
    currency: str = "USD"
    calls: int | None = Field(default=500, gt=0)
    """Model calls."""
    sandbox_s: float | None = Field(default=600.0, gt=0)
    """Seconds of code execution in the sandbox."""
    tool_calls: int | None = Field(default=200, gt=0)
    """Calls of MCP tools (a refused or failed call counts too: it was asked for)."""
    replans: int = Field(default=2, ge=0, le=50)
    """Plan revisions after the first."""

    def limits(self) -> dict[str, float | None]:
        """Each budget the views show, by name, with its limit (None: unlimited)."""
        return {
            "wall_s": self.wall_s,
            "tokens": self.tokens,
            "cost": self.cost,
            "calls": self.calls,
            "sandbox_s": self.sandbox_s,
            "tool_calls": self.tool_calls,
            "replans": self.replans,
        }


@dataclass
class Spend:
    """What a run (or one reservation) uses."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    sandbox_s: float = 0.0
    replans: int = 0
    tool_calls: int = 0

    @property
    def tokens(self) -> int:
        """Tokens in and out together."""
        return self.tokens_in + self.tokens_out

    def add(self, other: Spend, sign: int = 1) -> None:
        """Add (or, with ``sign=-1``, take away) another spend."""
        self.calls += sign * other.calls
        self.tokens_in += sign * other.tokens_in
        self.tokens_out += sign * other.tokens_out
        self.cost += sign * other.cost
        self.sandbox_s += sign * other.sandbox_s
        self.replans += sign * other.replans
        self.tool_calls += sign * other.tool_calls

    def add_usage(self, usage: Usage | ToolCall) -> bool:
        """Fold in a usage or tool-call message; False for a model call that was never
        answered (failed or cancelled: nothing was used, the guard released it)."""
        if isinstance(usage, ToolCall):
            self.tool_calls += 1
        elif usage.kind == "model":
            if usage.answer is None:
                return False
            self.add(Spend(1, usage.tokens_in, usage.tokens_out, usage.cost))
        else:
            self.sandbox_s += usage.sandbox_s
        return True


def first_exceeded(
    settings: BudgetSettings, used: Spend, want: Spend | None = None, wall_s: float = 0.0
) -> BudgetExceeded | None:
    """The first budget that ``used`` has reached, or, with ``want``, that ``used + want``
    would cross (only budgets ``want`` spends on); None when all is within the limits."""
    s = settings
    ask = want or Spend()
    checks: list[tuple[str, float | None, float, float]] = [
        ("wall_s", s.wall_s if want is None else None, wall_s, 0.0),
        ("tokens", s.tokens, used.tokens, ask.tokens),
        ("tokens_in", s.tokens_in, used.tokens_in, ask.tokens_in),
        ("tokens_out", s.tokens_out, used.tokens_out, ask.tokens_out),
        ("cost", s.cost, used.cost, ask.cost),
        ("calls", s.calls, used.calls, ask.calls),
        ("sandbox_s", s.sandbox_s, used.sandbox_s, ask.sandbox_s),
        ("tool_calls", s.tool_calls, used.tool_calls, ask.tool_calls),
    ]
    for name, limit, spent, extra in checks:
        if limit is None:
            continue
        if want is None and spent >= limit:
            return BudgetExceeded(name, limit, spent)
        if want is not None and extra > 0 and spent + extra > limit:
            return BudgetExceeded(name, limit, spent, extra)
    return None


class Guard(Protocol):
    """Reservations before spending: each ``hold_*`` raises `BudgetExceeded` when the step
    could cross a limit, else returns what it holds, to settle or release afterwards."""

    async def hold_call(self, tokens_in: int, price_in: float, price_out: float) -> Spend:
        """Hold a model call."""
        ...

    async def settle_call(self, held: Spend, tokens_in: int, tokens_out: int, cost: float) -> None:
        """Replace a call's reservation by what it used."""
        ...

    async def release(self, held: Spend) -> None:
        """Drop a reservation whose step never ran."""
        ...

    async def hold_sandbox(self, timeout_s: float) -> Spend:
        """Hold a sandbox run for its whole timeout."""
        ...

    async def add_sandbox(self, seconds: float) -> None:
        """Record a sandbox run's real duration (after releasing its reservation)."""
        ...

    async def hold_tool(self) -> Spend:
        """Hold one tool call."""
        ...

    async def settle_tool(self, held: Spend) -> None:
        """A held tool call was made."""
        ...


class BudgetGuard:
    """The run's reservations in the process that holds them (one event loop); a `Guard`.

    A step that fits only once steps in flight settle waits for them (they may fail and
    free their hold) for up to ``patience_s``; a step that what is already used leaves no
    room for is refused at once.
    """

    def __init__(self, settings: BudgetSettings, patience_s: float = 300.0) -> None:
        self.settings = settings
        self.used = Spend()
        self.held = Spend()
        self.largest_out = 0
        self.patience_s = patience_s
        self._changed: asyncio.Condition | None = None

    def call_want(self, tokens_in: int, price_in: float, price_out: float) -> Spend:
        """What a model call holds: its prompt, the largest answer so far, their cost."""
        out = self.largest_out
        return Spend(1, tokens_in, out, (tokens_in * price_in + out * price_out) / 1_000_000)

    def attempt(self, want: Spend, *, final: bool = False) -> Spend | None:
        """Hold ``want`` if it fits beside everything in flight and return it; None when
        it fits only once some of that settles. Raises `BudgetExceeded` when what is used
        leaves no room (and, ``final``, when it does not fit now)."""
        committed = Spend()
        committed.add(self.used)
        committed.add(self.held)
        beside = first_exceeded(self.settings, committed, want)
        if beside is None:
            self.held.add(want)
            return want
        alone = first_exceeded(self.settings, self.used, want)
        if alone is not None:
            raise alone
        if final:
            raise beside
        return None

    async def _hold(self, want: Callable[[], Spend]) -> Spend:
        changed = self._condition()
        deadline = asyncio.get_running_loop().time() + self.patience_s
        async with changed:
            while True:
                left = deadline - asyncio.get_running_loop().time()
                held = self.attempt(want(), final=left <= 0)
                if held is not None:
                    return held
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), left)

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def _settled(self) -> None:
        changed = self._condition()
        async with changed:
            changed.notify_all()

    async def hold_call(self, tokens_in: int, price_in: float, price_out: float) -> Spend:
        """Hold a model call (raises `BudgetExceeded` if it could cross a limit)."""
        return await self._hold(lambda: self.call_want(tokens_in, price_in, price_out))

    async def settle_call(self, held: Spend, tokens_in: int, tokens_out: int, cost: float) -> None:
        """Replace a call's reservation by what it used."""
        self.held.add(held, -1)
        self.used.add(Spend(1, tokens_in, tokens_out, cost))
        self.largest_out = max(self.largest_out, tokens_out)
        await self._settled()

    async def release(self, held: Spend) -> None:
        """Drop a reservation whose step never ran (it failed before using anything)."""
        self.held.add(held, -1)
        await self._settled()

    async def hold_sandbox(self, timeout_s: float) -> Spend:
        """Hold a sandbox run for its whole timeout."""
        return await self._hold(lambda: Spend(sandbox_s=timeout_s))

    async def hold_tool(self) -> Spend:
        """Hold one tool call (raises `BudgetExceeded` when the budget is spent)."""
        return await self._hold(lambda: Spend(tool_calls=1))

    async def settle_tool(self, held: Spend) -> None:
        """A held tool call was made."""
        self.held.add(held, -1)
        self.used.tool_calls += 1
        await self._settled()

    async def add_sandbox(self, seconds: float) -> None:
        """Record a run's real duration (after releasing its reservation)."""
        self.used.sandbox_s += seconds
        await self._settled()


@dataclass
class BudgetTracker:
    """The manager's tally from usage messages and the wall clock."""

    settings: BudgetSettings
    started: float = field(default_factory=time.monotonic)
    spend: Spend = field(default_factory=Spend)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def exhausted(self) -> BudgetExceeded | None:
        """The first budget that is used up, else None."""
        return first_exceeded(self.settings, self.spend, wall_s=self.elapsed())

    def can_replan(self) -> bool:
        """Whether another plan revision is allowed."""
        return self.spend.replans < self.settings.replans
