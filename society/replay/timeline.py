"""A run's log as a readable timeline: numbered entries, one-line summaries, filters, the
causal tree of a task, and a JSON form for machines.

Entries are numbered 1..N in log order; that number is what ``--fork-at`` and parent links
refer to. Times are seconds since the run's first message.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from rich.tree import Tree

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import (
    Payload,
    Presence,
)
from society.view.colours import role_style
from society.view.describe import describe
from society.view.terminal_text import safe_line

__all__ = ["Entry", "Filter", "entries", "render", "summarize", "to_json", "tree"]


@dataclass(frozen=True)
class Entry:
    """One message of the log, numbered, with its time since the run began."""

    number: int
    record: LogRecord
    offset_s: float
    parent_number: int | None = None

    @property
    def envelope(self) -> Envelope | None:
        """The message, or None for a line kept as raw text."""
        return self.record.envelope


def entries(records: Iterable[LogRecord]) -> list[Entry]:
    """Number the records and link each to its parent's number."""
    records = list(records)
    first = next((r.envelope.ts for r in records if r.envelope is not None), 0)
    numbers: dict[str, int] = {}
    result = []
    for n, record in enumerate(records, start=1):
        env = record.envelope
        if env is None:
            result.append(Entry(n, record, 0.0))
            continue
        numbers[env.id] = n
        parent = numbers.get(env.parent_id) if env.parent_id else None
        result.append(Entry(n, record, (env.ts - first) / 1e6, parent))
    return result


@dataclass
class Filter:
    """Which entries to show: every given criterion must hold (repeatable ones: any of).
    Presence heartbeats show only when ``presence`` is among the types asked for."""

    roles: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    tasks: set[str] = field(default_factory=set)
    since_s: float | None = None
    until_s: float | None = None

    def __call__(self, entry: Entry) -> bool:
        env = entry.envelope
        if env is None:
            return not (self.roles or self.types or self.tasks)
        p = env.payload
        if isinstance(p, Presence) and p.status == "heartbeat" and "presence" not in self.types:
            return False  # liveness noise, unless presence is asked for
        return (
            (not self.roles or env.role in self.roles)
            and (not self.types or env.payload.type in self.types)
            and (not self.tasks or (env.task_id or "") in self.tasks)
            and (self.since_s is None or entry.offset_s >= self.since_s)
            and (self.until_s is None or entry.offset_s <= self.until_s)
        )


def summarize(p: Payload) -> str:
    """A one-line description of a payload."""
    return describe(p).summary


def render(entry: Entry) -> Text:
    """One coloured timeline line."""
    env = entry.envelope
    line = Text(f"#{entry.number:<5}", style="dim")
    if env is None:
        line.append(safe_line(f"(not a valid message: {entry.record.error})"), style="red")
        return line
    line.append(f"{entry.offset_s:8.3f}s ", style="dim")
    line.append(f"{safe_line(env.sender):<14} ", style=role_style(env.role))
    line.append(f"{env.payload.type:<13} ", style="bold")
    line.append(f"{safe_line('[' + env.task_id + ']') if env.task_id else '':<14} ", style="cyan")
    line.append(summarize(env.payload))
    if entry.parent_number is not None:
        line.append(f"  ← #{entry.parent_number}", style="dim")
    return line


def to_json(entry: Entry) -> dict[str, Any]:
    """An entry for machines: number, seq, subject, parent number and the message."""
    env = entry.envelope
    return {
        "number": entry.number,
        "seq": entry.record.seq,
        "subject": entry.record.subject,
        "offset_s": round(entry.offset_s, 6),
        "parent_number": entry.parent_number,
        "envelope": json.loads(env.model_dump_json()) if env is not None else None,
        "raw": entry.record.raw,
        "error": entry.record.error,
    }


def tree(all_entries: list[Entry], task: str | None = None) -> Tree:
    """The causal tree (parent links) of a task's messages, or of the whole run."""
    children: dict[int | None, list[Entry]] = defaultdict(list)
    for e in all_entries:
        if e.envelope is not None and e.envelope.payload.type != "presence":
            children[e.parent_number].append(e)
    in_task = {
        e.number
        for e in all_entries
        if e.envelope is not None and (task is None or e.envelope.task_id == task)
    }
    title = f"causal tree of task {task}" if task else "causal tree of the run"
    root = Tree(Text(title, style="bold"))

    shown: set[int] = set()

    def grow(node: Tree, entry: Entry) -> None:
        shown.add(entry.number)
        branch = node.add(render(entry))
        for child in children.get(entry.number, []):
            grow(branch, child)

    # Roots: messages of the task whose parent is not itself a message of the task.
    for e in all_entries:
        if e.number in in_task and e.parent_number not in in_task and e.number not in shown:
            if e.envelope is not None and e.envelope.payload.type == "presence":
                continue
            grow(root, e)
    return root
