"""`Watch`: the manager's budget keeping — spend folded from usage messages, and a clock
that ends the run when the wall-clock budget is spent or a role it needs has nobody, and
fails tasks past their timeout.

When a budget is spent, the run's phase becomes stopping: dispatch stops and tasks in
flight may still report (they cannot spend more: the budget guard refuses their next
call) for a short grace; then the run ends. The watch decides and moves the ledger's
phase; the manager acts through the callbacks it gives.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from bus import Envelope
from bus.payloads import Control, ToolCall, Usage
from roles.budget import BudgetTracker
from roles.human_gate import HumanGate
from roles.manager.ledger import InFlight, Ledger, Phase
from roles.presence import PresenceRegistry
from roles.settings import ManagerSettings

__all__ = ["Watch"]


class Finish(Protocol):
    """The manager's `finish`."""

    def __call__(
        self, status: str, reason: str, *, parent: Envelope | str | None
    ) -> Awaitable[None]: ...


class Watch:
    """Budgets and the clock of one manager."""

    def __init__(
        self,
        settings: ManagerSettings,
        budget: BudgetTracker,
        presence: PresenceRegistry,
        ledger: Ledger,
        *,
        finish: Finish,
        time_out: Callable[[InFlight], Awaitable[None]],
        spawn: Callable[[Coroutine[Any, Any, None]], object],
        human: HumanGate,
        send: Callable[[Control], Awaitable[object]],
    ) -> None:
        self.settings = settings
        self.budget = budget
        self.presence = presence
        self.ledger = ledger
        self._finish = finish
        self._time_out = time_out
        self._spawn = spawn
        self._human = human
        self._send = send
        self.stop_reason = ""
        """Why the run is stopping for a budget (once its phase is stopping)."""

    async def on_usage(self, env: Envelope, usage: Usage | ToolCall) -> None:
        """Add up spend; stop when a budget is reached."""
        if not self.budget.spend.add_usage(usage):
            return  # a failed or cancelled call: nothing was answered
        spent = self.budget.exhausted()
        if spent is not None:
            await self.stop_for_budget(spent.reason, parent=env)

    async def stop_for_budget(self, reason: str, *, parent: Envelope | None) -> None:
        """Dispatch nothing more; let tasks in flight report for the grace, then finish."""
        if self.ledger.move("stop"):
            self.stop_reason = reason
            self._spawn(self._grace())
        if not self.ledger.inflight:
            await self._finish("budget_exhausted", reason, parent=parent)

    async def _grace(self) -> None:
        await asyncio.sleep(self.settings.budget_grace_s)
        if self.ledger.phase is Phase.STOPPING:
            await self._finish("budget_exhausted", self.stop_reason, parent=None)

    async def run(self, planning_pending: Callable[[], bool]) -> None:
        """Every quarter second: the wall-clock budget, missing roles, task timeouts."""
        while self.ledger.phase not in (Phase.PARKED, Phase.FINISHED):
            await asyncio.sleep(0.25)
            spent = self.budget.exhausted()
            if spent is not None:
                await self._finish("budget_exhausted", spent.reason, parent=None)
                return
            needed = {f.role for f in self.ledger.inflight.values()}
            if planning_pending():
                needed.add("planner")
            for role in self.presence.overdue(needed):
                await self._finish("failed", self.presence.missing(role), parent=None)
                return
            limit = self.settings.task_timeout_s
            for flight in self.ledger.timed_out(limit, time.monotonic()):
                await self._time_out(flight)
            await self._park_if_idle()

    async def _park_if_idle(self) -> None:
        """Park when the run has only waited for a person for ``park_after_s`` and nobody is
        attached to answer."""
        after, since = self._human.settings.park_after_s, self._human.waiting_since()
        if after is None or since is None or self.ledger.inflight:
            return
        if self._human.attached:
            return
        if time.monotonic() - since >= after and self.ledger.move("park"):
            why = f"waiting for a person's answer for {after:g}s with nothing else to do"
            await self._send(Control(action="park", reason=why, by="manager"))
