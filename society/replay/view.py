"""What ``society replay`` prints: the timeline, a step-by-step walk, a live follow, and a
re-run's verdict with the first differing message side by side."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from bus import Bus, ConnectOptions, runlog
from bus.payloads import Final
from society.replay.compare import Canonical, Divergence
from society.replay.timeline import Entry, Filter, render, to_json, tree
from society.view.terminal_text import safe_block, safe_line

__all__ = ["follow", "show", "show_divergence", "step"]


def _emit(entry: Entry, console: Console, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(to_json(entry), ensure_ascii=False) + "\n")
    else:
        console.print(render(entry), soft_wrap=True)


def show(
    all_entries: list[Entry],
    keep: Filter,
    console: Console,
    *,
    as_json: bool = False,
    as_tree: bool = False,
) -> int:
    """Print the entries ``keep`` accepts (or the causal tree); returns how many."""
    if as_tree:
        tasks: list[str | None] = [*sorted(keep.tasks)] or [None]
        for task in tasks:
            console.print(tree(all_entries, task))
        return len(all_entries)
    shown = 0
    for entry in all_entries:
        if keep(entry):
            _emit(entry, console, as_json)
            shown += 1
    return shown


def _detail(entry: Entry) -> Syntax:
    env = entry.envelope
    data: Any = env.model_dump(mode="json") if env is not None else entry.record.raw
    body = safe_block(json.dumps(data, indent=2, ensure_ascii=False))
    return Syntax(body, "json", word_wrap=True)


def step(
    all_entries: list[Entry],
    keep: Filter,
    console: Console,
    stdin: TextIO | None = None,
) -> int:
    """Walk the entries one at a time: Enter shows the next, q stops; returns how many."""
    stdin = stdin or sys.stdin
    chosen = [e for e in all_entries if keep(e)]
    for i, entry in enumerate(chosen, start=1):
        console.rule(f"{i}/{len(chosen)}")
        console.print(render(entry), soft_wrap=True)
        console.print(_detail(entry))
        if i == len(chosen):
            break
        console.print("[dim]Enter: next · q: quit[/]", end=" ")
        answer = stdin.readline()
        if not answer or answer.strip().lower() in ("q", "quit"):
            console.print()
            return i
    return len(chosen)


async def follow(
    connect: ConnectOptions | str,
    run_id: str,
    keep: Filter,
    console: Console,
    *,
    as_json: bool = False,
    on_entry: Callable[[Entry], None] | None = None,
) -> int:
    """Print a run's messages so far, then live ones, until its final message."""
    numbers: dict[str, int] = {}
    first_ts: int | None = None
    shown = 0
    async with Bus(connect, name=f"follow-{run_id}", reports=False) as bus:
        n = 0
        async for record in runlog.follow_run(bus, run_id):
            n += 1
            env = record.envelope
            offset, parent = 0.0, None
            if env is not None:
                first_ts = env.ts if first_ts is None else first_ts
                offset = (env.ts - first_ts) / 1e6
                parent = numbers.get(env.parent_id or "")
                numbers[env.id] = n
            entry = Entry(n, record, offset, parent)
            if keep(entry):
                _emit(entry, console, as_json)
                shown += 1
            if on_entry is not None:
                on_entry(entry)
            if env is not None and isinstance(env.payload, Final):
                break
    return shown


def _side(c: Canonical | None) -> Any:
    if c is None:
        return "(no such message)"
    body = json.dumps(c.form, indent=2, ensure_ascii=False, sort_keys=True)
    lines = body.splitlines()
    if len(lines) > 60:
        body = "\n".join([*lines[:60], f"… {len(lines) - 60} more lines"])
    return Syntax(safe_block(f"#{c.number} {c.envelope.sender}\n{body}"), "json", word_wrap=True)


def show_divergence(divergence: Divergence | None, console: Console) -> None:
    """Say "identical", or show the first differing message of each run side by side."""
    if divergence is None:
        console.print("[bold green]identical[/]: the re-run sent the same messages")
        return
    old, new = divergence.recorded, divergence.rerun
    if old is not None and new is not None:
        where = f"message #{old.number} of the log ({old.envelope.payload.type} from {old.lane[0]})"
        what = f"differs in {', '.join(divergence.fields)}"
    elif old is not None:
        where = f"message #{old.number} of the log ({old.envelope.payload.type})"
        what = "has no counterpart in the re-run"
    else:
        assert new is not None
        where = f"re-run message #{new.number} ({new.envelope.payload.type} from {new.lane[0]})"
        what = "is not in the log"
    said = escape(safe_line(f"{where}: {what}"))
    console.print(f"[bold red]differs[/]: first at {said}", highlight=False)
    table = Table(expand=True, show_lines=False)
    table.add_column("recorded", ratio=1, overflow="fold")
    table.add_column("re-run", ratio=1, overflow="fold")
    table.add_row(_side(old), _side(new))
    console.print(table)
