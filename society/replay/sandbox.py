"""`ReplaySandbox`: serves the sandbox results recorded in a log, by program, so a re-run
needs no Docker. A run the log shows started but never finished waits until it is
cancelled, as it was. In a fork, programs the log does not hold (or that never finished
within the replayed part) go to the real sandbox."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping

from roles.execution import CodeRunner, ExecutionResult

__all__ = ["ReplaySandbox"]

_NOT_RECORDED = "the log holds no recorded run of this program (the re-run diverged)"


class ReplaySandbox:
    """A `CodeRunner` answering from recorded executions (an async context manager)."""

    def __init__(
        self,
        executions: dict[str, deque[ExecutionResult | None]],
        *,
        fallback: CodeRunner | None = None,
        pace: bool = True,
    ) -> None:
        self.executions = {code: deque(runs) for code, runs in executions.items()}
        self.fallback = fallback
        self.pace = pace

    async def __aenter__(self) -> ReplaySandbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def execute(
        self, code: str, files: Mapping[str, bytes] | None = None, timeout_s: float | None = None
    ) -> ExecutionResult:
        """The recorded result of this program (the next one, if it ran several times)."""
        runs = self.executions.get(code)
        if runs:
            run = runs.popleft()
            if run is not None:
                if self.pace and run.wall_s > 0:
                    await asyncio.sleep(run.wall_s)  # the recorded timing
                return run
            if self.fallback is None:
                await asyncio.Event().wait()  # as recorded: it never finished
        if self.fallback is not None:
            return await self.fallback.execute(code, files, timeout_s)
        return ExecutionResult.failure(_NOT_RECORDED)
