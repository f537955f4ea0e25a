"""Errors and signals of the roles package.

RoleError
├── ModelAnswerError    a model answer did not validate after every try
├── TaskFailed          a task could not be done (the reason goes in the result)
└── BudgetExceeded      a budget is spent (name, limit, used; a typed stop, never a string)

ModelCallError          a model client's failure whose message is already the whole reason
                        (the replay client raises it with the recorded reason)
CallNotMade             (a CancelledError) a replayed call the recording never made: it
                        waited for the cancel the recording implies, and leaves no record
"""

from __future__ import annotations

import asyncio
from typing import Literal

FailureCause = Literal["work", "model", "worker"]
"""Why a task failed: its work, the model being unreachable, or its workers dying."""

__all__ = [
    "BudgetExceeded",
    "CallNotMade",
    "FailureCause",
    "ModelAnswerError",
    "ModelCallError",
    "RoleError",
    "TaskFailed",
]


class RoleError(Exception):
    """Root of the roles package's errors."""


class ModelAnswerError(RoleError):
    """The model's answer never validated; ``tries`` answers were refused."""

    def __init__(self, what: str, tries: int, last_error: str) -> None:
        self.what = what
        self.tries = tries
        self.last_error = last_error
        super().__init__(
            f"the model's {what} did not validate after {tries} tries; last error: {last_error}"
        )


class TaskFailed(RoleError):
    """A task failed; the message is the reason reported in the result, ``cause`` whether
    the work itself failed or the model could not be reached (an outage teaches nothing)."""

    def __init__(self, reason: str, *, cause: FailureCause = "work") -> None:
        self.cause: FailureCause = cause
        super().__init__(reason)


class BudgetExceeded(RoleError):
    """A budget is spent (``extra`` unset), or the next step would cross it (``extra``:
    what that step would use). ``reason`` is the sentence a final message gives."""

    def __init__(self, name: str, limit: float, used: float, extra: float | None = None) -> None:
        self.name = name
        self.limit = limit
        self.used = used
        self.extra = extra
        if extra is None:
            self.reason = f"budget {name}={limit:,g} is spent (used {used:,.6g})"
        else:
            self.reason = (
                f"the next step would exceed {name}={limit:,g} "
                f"(used and in flight {used:,.6g}, this step up to {extra:,.6g})"
            )
        super().__init__(f"budget exhausted: {self.reason}")


class ModelCallError(Exception):
    """A model call failed; the message (``Type: detail``) is reported as it is."""


class CallNotMade(asyncio.CancelledError):
    """A cancel that reached a call the recording shows was never made: not logged."""
