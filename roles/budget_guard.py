"""`BudgetGuard`: checked before every model call and sandbox run of the roles in one
process, so a run stops at its limits instead of noticing afterwards.

A call reserves what it may use (1 call; its prompt tokens, counted before sending; the
largest answer seen so far; the matching cost) and settles the real figures after. A
call is refused when the reservations of everything in flight plus its own would cross a
limit. So the calls limit is exact, and tokens and cost can only be overshot by how much
an answer exceeds the largest one seen before — at most about one call's output. Sandbox
runs reserve their whole timeout (the timeout kills), so sandbox seconds are never
exceeded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from roles.errors import BudgetExceeded
from roles.manager.budget import BudgetSettings

__all__ = ["BUDGET_PREFIX", "BudgetGuard", "Reservation"]

BUDGET_PREFIX = "budget exhausted: "
"""Start of the error of a task stopped by a budget (the manager ends the run on it)."""


@dataclass
class Reservation:
    """What one call or run holds until it settles."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    sandbox_s: float = 0.0


class BudgetGuard:
    """Shared by the roles of a process; thread-safe and non-blocking."""

    def __init__(self, settings: BudgetSettings) -> None:
        self.settings = settings
        self.used = Reservation()
        self.held = Reservation()
        self.largest_out = 0
        self._lock = threading.Lock()

    def _check(self, want: Reservation) -> None:
        s, u, h = self.settings, self.used, self.held
        checks: list[tuple[str, float | None, float, float]] = [
            ("calls", s.calls, u.calls + h.calls, want.calls),
            ("tokens_in", s.tokens_in, u.tokens_in + h.tokens_in, want.tokens_in),
            ("tokens_out", s.tokens_out, u.tokens_out + h.tokens_out, want.tokens_out),
            (
                "tokens",
                s.tokens,
                u.tokens_in + u.tokens_out + h.tokens_in + h.tokens_out,
                want.tokens_in + want.tokens_out,
            ),
            ("cost", s.cost, u.cost + h.cost, want.cost),
            ("sandbox_s", s.sandbox_s, u.sandbox_s + h.sandbox_s, want.sandbox_s),
        ]
        for name, limit, committed, extra in checks:
            if limit is not None and extra > 0 and committed + extra > limit:
                msg = (
                    f"{BUDGET_PREFIX}the next step would exceed {name}={limit:,g} "
                    f"(used and in flight {committed:,.6g}, this step up to {extra:,.6g})"
                )
                raise BudgetExceeded(msg)

    def _add(self, target: Reservation, r: Reservation, sign: int) -> None:
        target.calls += sign * r.calls
        target.tokens_in += sign * r.tokens_in
        target.tokens_out += sign * r.tokens_out
        target.cost += sign * r.cost
        target.sandbox_s += sign * r.sandbox_s

    def reserve_call(self, tokens_in: int, price_in: float, price_out: float) -> Reservation:
        """Hold a model call (raises `BudgetExceeded` if it could cross a limit)."""
        with self._lock:
            out = self.largest_out
            want = Reservation(
                calls=1,
                tokens_in=tokens_in,
                tokens_out=out,
                cost=(tokens_in * price_in + out * price_out) / 1_000_000,
            )
            self._check(want)
            self._add(self.held, want, +1)
            return want

    def settle_call(self, held: Reservation, tokens_in: int, tokens_out: int, cost: float) -> None:
        """Replace a call's reservation by what it used."""
        with self._lock:
            self._add(self.held, held, -1)
            self._add(self.used, Reservation(1, tokens_in, tokens_out, cost), +1)
            self.largest_out = max(self.largest_out, tokens_out)

    def release(self, held: Reservation) -> None:
        """Drop a reservation whose step never ran (it failed before using anything)."""
        with self._lock:
            self._add(self.held, held, -1)

    def reserve_sandbox(self, timeout_s: float) -> Reservation:
        """Hold a sandbox run for its whole timeout."""
        with self._lock:
            want = Reservation(sandbox_s=timeout_s)
            self._check(want)
            self._add(self.held, want, +1)
            return want

    def add_sandbox(self, seconds: float) -> None:
        """Record a run's real duration (after releasing its reservation)."""
        with self._lock:
            self.used.sandbox_s += seconds
