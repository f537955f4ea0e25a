"""The live view of a run (rich) and the end-of-run summary.

On a terminal the view redraws (at most 8 times a second) the tasks per state, the
running and latest tasks, the budget line and recent events — a few rows whatever the
plan's size; elsewhere (CI, pipes) it prints one line per notable event, so logs stay
readable. A quiet view
only keeps the state (when a person's conversation view owns the terminal). Text from the
run (answers, notes, names, reasons) is printed through `society.view.terminal_text`, as rich
Text, so it can neither drive the terminal nor inject markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bus import Envelope
from society.view.progress import STATES, RunState, TaskView
from society.view.terminal_text import block, line, safe_line

__all__ = ["LiveView", "render_summary"]

_STYLE = {
    "pending": "dim",
    "proposed": "dim italic",
    "running": "yellow",
    "done": "green",
    "failed": "red",
    "cancelled": "magenta",
    "refused": "dim red",
    "superseded": "dim",
    "merged": "dim cyan",
}
_REDRAW_S = 0.125
_ROWS = 6
_FULL_TABLE = 40
"""Up to this many tasks the summary lists them all; beyond, the ones that did not finish."""


def spend(state: RunState) -> dict[str, float]:
    """What the run has used, by budget name (the names of `BudgetSettings.limits`)."""
    s = state.spend
    return {
        "wall_s": state.wall_s,
        "tokens": s.tokens,
        "cost": s.cost,
        "calls": s.calls,
        "sandbox_s": s.sandbox_s,
        "replans": s.replans,
    }


def _budget_line(state: RunState, limits: dict[str, float | None] | None) -> str:
    used = spend(state)
    parts = []
    for name, value in used.items():
        limit = (limits or {}).get(name)
        shown = f"{value:,.4g}" if isinstance(value, float) else f"{value:,}"
        parts.append(f"{name} {shown}" + (f"/{limit:,g}" if limit is not None else ""))
    parts.append(f"in flight {state.in_flight} (max {state.max_in_flight})")
    if state.rate_wait_s > 0:
        parts.append(f"waited {state.rate_wait_s:.1f}s for rate limits")
    return " · ".join(parts)


def states_line(state: RunState) -> Text:
    """Tasks per state, in a fixed order (only the states that have tasks)."""
    shown = [(f"{state.counts[s]} {s}", _STYLE.get(s, "")) for s in STATES if state.counts[s] > 0]
    text = Text(" · ").join(Text(label, style) for label, style in shown) if shown else Text("")
    if state.paused is not None:
        text.append("  paused: ", "bold magenta").append(safe_line(state.paused))
    return text


def _note(state: RunState, t: TaskView) -> Text:
    why = state.waiting_for(t)
    note = f"waits for {why}" if why else (t.note or t.description[:80])
    if t.rate_wait_s > 0:
        note += f" (waited {t.rate_wait_s:.1f}s for a rate limit)"
    return line(note)


def task_table(state: RunState, tasks: Iterable[TaskView] | None = None) -> Table:
    """The tasks (all, or those given) as a table."""
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for col in ("task", "role", "state", "try", "value", "description / note"):
        table.add_column(col, overflow="fold")
    for t in state.tasks.values() if tasks is None else tasks:
        table.add_row(
            line(t.id),
            line(t.role),
            line(t.state, _STYLE.get(t.state, "")),
            str(t.attempts or ""),
            f"{t.value:g}",
            _note(state, t),
        )
    return table


def _shown_tasks(state: RunState) -> list[TaskView]:
    """The running tasks first, then the latest to change (a few rows whatever the size)."""
    running = [state.tasks[i] for i in list(state.running)[:_ROWS] if i in state.tasks]
    seen = {t.id for t in running}
    recent = [state.tasks[i] for i in reversed(state.recent) if i not in seen and i in state.tasks]
    return running + recent[: max(2, _ROWS - len(running))]


class LiveView:
    """Shows a run as it happens; each message costs the same whatever the plan's size."""

    def __init__(
        self,
        console: Console,
        state: RunState,
        budgets: dict[str, float | None] | None = None,
        *,
        quiet: bool = False,
    ) -> None:
        self.console = console
        self.state = state
        self.budgets = budgets
        self.quiet = quiet
        self._live: Live | None = None
        self._drawn = 0.0

    def __enter__(self) -> LiveView:
        if self.console.is_terminal and not self.quiet:
            self._live = Live(
                self._render(), console=self.console, auto_refresh=False, transient=True
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render(), refresh=True)
            self._live.__exit__(None, None, None)
            self._live = None

    def _render(self) -> Panel:
        s = self.state
        events = Text("\n".join(safe_line(e) for e in s.events[-4:]), style="dim")
        title = line(f"run {s.run_id} · plan {s.revision} · {s.messages} messages")
        return Panel(
            Group(
                states_line(s),
                task_table(s, _shown_tasks(s)),
                Text(_budget_line(s, self.budgets)),
                events,
            ),
            title=title,
        )

    def update(self, env: Envelope) -> None:
        """Fold a message in and redraw at most every `_REDRAW_S` (or print its event line)."""
        event = self.state.apply(env)
        if self._live is not None:
            now = time.monotonic()
            if now - self._drawn >= _REDRAW_S:
                self._drawn = now
                self._live.update(self._render(), refresh=True)
        elif event and not self.quiet:
            shown = Text.assemble(line(f"{env.sender:>14}", "dim"), " ", line(event))
            if self.console.color_system is None:  # plain text: skip rich's rendering (7x)
                self.console.file.write(shown.plain + "\n")
            else:
                self.console.print(shown, highlight=False, soft_wrap=True)


def render_summary(
    console: Console,
    state: RunState,
    run_dir: Path,
    log_path: Path | None,
    limits: dict[str, float | None] | None = None,
) -> None:
    """The end-of-run summary: outcome, answer, tasks, spend, where things are."""
    final = state.final
    status = final.status if final else "no final message"
    colour = {"succeeded": "green", "unverified": "yellow"}.get(status, "red")
    console.print()
    console.rule(Text.assemble(line(status, f"bold {colour}"), line(f" · run {state.run_id}")))
    if final and final.reason:
        console.print(_labelled("reason", line(final.reason)), highlight=False)
    if final and final.answer:
        console.print(Panel(block(final.answer), title="answer", expand=False))
    elif final and final.outputs:
        text = json.dumps(final.outputs, indent=1, ensure_ascii=False)
        console.print(Panel(block(text), title="results so far", expand=False))
    if final and final.verdict is not None:
        verdict = final.verdict
        mark = ("verified", "green") if verdict.verified else ("not verified", "yellow")
        for check in verdict.checks or ["(no check)"]:
            console.print(Text.assemble(mark, line(f" {check}")), highlight=False)
        if verdict.evidence:
            console.print(f"[dim]evidence: {', '.join(verdict.evidence)}[/]", highlight=False)
        sure = verdict.confidence
        if sure is not None:
            views = ", ".join(sure.views) or "none"
            console.print(
                _labelled(
                    "confidence",
                    line(f"{sure.score:.2f} (views agreeing: {views}; share {sure.share:.0%})"),
                ),
                highlight=False,
            )
            for other in sure.alternatives:
                console.print(_labelled("also said", line(other)), highlight=False)
    console.print(states_line(state))
    if len(state.tasks) <= _FULL_TABLE:
        console.print(task_table(state))
    else:
        unfinished = [t for t in state.tasks.values() if t.state != "done"]
        if unfinished:
            console.print(task_table(state, unfinished[:_FULL_TABLE]))
        if len(unfinished) > _FULL_TABLE:
            console.print(f"[dim]… and {len(unfinished) - _FULL_TABLE} more unfinished tasks[/]")
    if state.critiques:
        for c in state.critiques:
            said = line(f" {c.detector} → {c.verdict}: {c.summary}")
            console.print(Text.assemble(("critique", "yellow"), said), highlight=False)
    console.print(f"[bold]spend / budget:[/] {_budget_line(state, limits)}", highlight=False)
    console.print(
        f"[bold]spend:[/] {state.calls} model calls, {state.tokens_in:,} tokens in / "
        f"{state.tokens_out:,} out, cost {state.cost:.4f}, sandbox {state.sandbox_s:.1f}s, "
        f"wall {state.wall_s:.1f}s, {state.replans} replans, most tasks in flight at once: "
        f"{state.max_in_flight}",
        highlight=False,
    )
    if final and final.artifacts:
        names = ", ".join(safe_line(a.path) for a in final.artifacts)
        console.print(_labelled("artifacts", Text(names)), highlight=False)
    console.print(_labelled("run folder", line(str(run_dir))), highlight=False)
    if log_path is not None:
        shown = line(f"{log_path} ({state.messages} messages)")
        console.print(_labelled("message log", shown), highlight=False)


def _labelled(label: str, value: Text) -> Text:
    """``label: value`` with a bold label, the value printed as it is."""
    return Text.assemble((f"{label}:", "bold"), " ", value)
