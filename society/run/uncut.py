"""A resumed run's log as an uninterrupted run would have written it, for re-runs.

When a run's processes stop, work under way is cut off: a model call whose task never
reported, a sandbox run that never returned. `society resume` does that work again, so
the log holds it twice. `uncut` leaves out, before each ``resumed`` mark, what each
role had said about work it had not finished (since its last result, plan, critique or
lesson in that lane), and the marks: ``resumed``, and ``park`` where it stopped to wait.
"""

from __future__ import annotations

from collections.abc import Sequence

from bus.logfile import LogRecord
from bus.payloads import Control

__all__ = ["uncut"]

_CLOSING = {"result", "plan", "critique", "lesson", "final"}
"""What ends a role's piece of work in a lane."""
_STEADY = {"manager", "runner", "human"}
"""Roles whose messages a stop does not cut off (the manager is rebuilt, not redone)."""


def _mark(record: LogRecord, action: str = "resumed") -> bool:
    env = record.envelope
    return env is not None and isinstance(env.payload, Control) and env.payload.action == action


def uncut(
    records: Sequence[LogRecord], *, marks: bool = False, stopped: bool = False
) -> list[LogRecord]:
    """``records`` without the work each stop cut off (and, unless ``marks``, without the
    resume marks); with ``stopped``, the log ends where its processes stopped."""
    dropped: set[int] = set()
    start = 0
    for i in range(len(records) + 1):
        at_end = i == len(records)
        if not (stopped and at_end) and (at_end or not _mark(records[i])):
            continue
        if not marks and not at_end:
            dropped.add(i)
        open_since: dict[tuple[str, str], int] = {}
        for j in range(start, i):
            env = records[j].envelope
            if env is None or env.role in _STEADY or env.payload.type == "presence":
                continue
            lane = (env.role, env.task_id or "")
            if env.payload.type in _CLOSING:
                open_since.pop(lane, None)
            else:
                open_since.setdefault(lane, j)
        for lane, first in open_since.items():
            for j in range(first, i):
                env = records[j].envelope
                if env is not None and (env.role, env.task_id or "") == lane:
                    dropped.add(j)
        start = i + 1
    if not marks:  # a run that parked stopped as a resumed one does
        dropped |= {i for i, r in enumerate(records) if _mark(r, "park")}
    return [r for i, r in enumerate(records) if i not in dropped]
