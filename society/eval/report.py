"""The eval's tables: every answer, the totals per arm, and what changed between two evals."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from society.eval.results import EvalResults, Record, Totals
from society.eval.risk import COVERAGES, risk_coverage, threshold_for

__all__ = [
    "comparable",
    "mcnemar",
    "render_compare",
    "render_kinds",
    "render_results",
    "render_risk",
    "render_roles",
    "render_totals",
]


def _opt(value: float | None, fmt: str) -> str:
    return "—" if value is None else format(value, fmt)


def render_results(console: Console, results: EvalResults) -> None:
    """The per-answer table, then the totals."""
    half = f" ({results.split})" if results.split else ""
    used = [f"memory {results.memory}"] if results.memory != "per-case" else []
    used += [f"prompt set {results.prompts}"] if results.prompts else []
    also = f" · {', '.join(used)}" if used else ""
    table = Table(
        title=escape(f"eval {results.suite}{half} on {results.model}{also}"), title_justify="left"
    )
    for col in ("case", "arm", "passed", "ended", "calls", "tokens", "wall s", "cost"):
        table.add_column(col, justify="right" if col in ("calls", "tokens", "wall s") else "left")
    for r in results.records:
        false = " (false)" if r.false_success else ""
        table.add_row(
            escape(r.case + (f" #{r.repeat + 1}" if results.repeat > 1 else "")),
            r.arm,
            "[green]yes[/]" if r.passed else "[red]no[/]",
            escape(r.status) + false,
            str(r.calls),
            f"{r.tokens:,}",
            f"{r.wall_s:.1f}",
            f"{r.cost:.4f}",
        )
    console.print(table)
    if any(r.false_success for r in results.records):
        console.print("(false): ended 'succeeded' but failed its graders (a false success)")
    render_kinds(console, results)
    render_roles(console, results)
    render_totals(console, results.totals())
    render_risk(console, results)


def render_roles(console: Console, results: EvalResults) -> None:
    """Which roles did work: per role, the answers it worked on, its calls, and how many of
    those answers passed (nothing when no record names its roles)."""
    mine = [r for r in results.records if r.roles]
    if not mine:
        return
    table = Table(title="roles that worked (society)", title_justify="left")
    for col in ("role", "answers", "calls", "of those right"):
        table.add_column(col, justify="left" if col == "role" else "right")
    for role in sorted({name for r in mine for name in r.roles}):
        worked = [r for r in mine if r.roles.get(role)]
        calls = sum(r.roles[role] for r in worked)
        right = sum(r.passed for r in worked)
        table.add_row(role, f"{len(worked)}/{len(mine)}", str(calls), str(right))
    console.print(table)


def render_kinds(console: Console, results: EvalResults) -> None:
    """Passed per kind of case, a column per arm (nothing when no case has a kind)."""
    kinds = results.kinds()
    if not kinds:
        return
    table = Table(title="per kind: passed (false successes)", title_justify="left")
    table.add_column("kind")
    for arm in results.arms:
        table.add_column(arm, justify="right")
    for kind in [*kinds, None]:
        cells = [
            f"{t.passed}/{t.cases}" + (f" ({t.false_successes})" if t.false_successes else "")
            for t in results.totals(kind)
        ]
        table.add_row(kind or "[bold]all[/]", *cells)
    console.print(table)


def _interval(t: Totals) -> str:
    bounds = t.interval
    return "—" if bounds is None else f"{100 * bounds[0]:.0f}–{100 * bounds[1]:.0f}%"


def render_totals(console: Console, totals: list[Totals]) -> None:
    """Pass rate, false successes, spend and spend per solved case: a row per figure, a
    column per arm (fits a narrow terminal)."""
    table = Table(title="totals", title_justify="left")
    table.add_column("")
    for t in totals:
        table.add_column(t.arm, justify="right")
    rows: list[tuple[str, list[str]]] = [
        ("passed", [f"{t.passed}/{t.cases}" for t in totals]),
        ("pass rate", [f"{100 * t.pass_rate:.0f}%" for t in totals]),
        ("spread (sd of repeats)", [_opt(t.spread and 100 * t.spread, ".1f") for t in totals]),
        ("95% interval", [_interval(t) for t in totals]),
        ("false successes", [str(t.false_successes) for t in totals]),
        ("model calls", [str(t.calls) for t in totals]),
        ("tokens", [f"{t.tokens:,}" for t in totals]),
        ("wall s", [f"{t.wall_s:.0f}" for t in totals]),
        ("cost", [f"{t.cost:.4f}" for t in totals]),
        ("calls per solved", [_opt(t.calls_per_solved, ".1f") for t in totals]),
        ("tokens per solved", [_opt(t.tokens_per_solved, ",.0f") for t in totals]),
        ("wall s per solved", [_opt(t.wall_per_solved, ".1f") for t in totals]),
    ]
    for name, cells in rows:
        table.add_row(name, *cells)
    console.print(table)


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.0f}%"


def _drawn(records: list[Record], arm: str) -> str:
    """How often ``arm`` answered right, and how often a right value was among what it drew
    ("—" when it states nothing else it drew)."""
    mine = [r for r in records if r.arm == arm]
    if not any(r.others for r in mine):
        return "—"
    return f"{sum(r.passed for r in mine)} / {sum(r.drawn_right for r in mine)}"


def render_risk(console: Console, results: EvalResults) -> None:
    """Per arm, the precision of its most confident answers at each coverage, the AUROC of
    its confidence, and the least confidence at which its answers are 95 % right (on
    ``train``, where to set ``roles.verifier.min_confidence``; `society.eval.risk`)."""
    table = Table(
        title="risk–coverage: right among the most confident answers", title_justify="left"
    )
    table.add_column("")
    figures = [risk_coverage(results.records, arm) for arm in results.arms]
    for f in figures:
        table.add_column(f.arm, justify="right")
    for c in COVERAGES:
        table.add_row(f"at {100 * c:.0f}% coverage", *[_percent(f.at(c)) for f in figures])
    table.add_row("AUROC", *[_opt(f.auroc, ".2f") for f in figures])
    table.add_row(
        "right / a right value drawn", *[_drawn(results.records, a) for a in results.arms]
    )
    table.add_row(
        "least confidence 95% right",
        *[_opt(threshold_for(results.records, f.arm, 0.95), ".2f") for f in figures],
    )
    console.print(table)
    unstated = [
        a for a in results.arms if all(r.confidence is None for r in results.records if r.arm == a)
    ]
    if unstated:
        console.print(
            f"({', '.join(unstated)}: no confidence stated, ranked by how it ended — "
            "succeeded, then unverified, then the rest)"
        )


def comparable(a: EvalResults, b: EvalResults) -> str | None:
    """Why two evals cannot be compared answer by answer (None when they can): another
    suite, or another half of it."""
    if a.suite != b.suite:
        return f"the evals ran different suites ({a.suite!r} and {b.suite!r})"
    if a.split != b.split:
        return f"the evals ran different splits ({a.split or 'all'} and {b.split or 'all'})"
    return None


def _key(r: Record) -> tuple[str, str, int]:
    return (r.case, r.arm, r.repeat)


def render_compare(console: Console, a: EvalResults, b: EvalResults) -> tuple[int, int]:
    """Per answer, what changed from ``a`` to ``b``; then the totals side by side.
    Returns (answers that now pass, answers that no longer pass)."""
    before = {_key(r): r for r in a.records}
    after = {_key(r): r for r in b.records}
    keys = sorted(before.keys() | after.keys())
    table = Table(title=f"{a.suite} ({a.commit or '?'}) → {b.suite} ({b.commit or '?'})")
    for col in ("case", "arm", "before", "after", "tokens", "wall s"):
        table.add_column(col, justify="right" if col in ("tokens", "wall s") else "left")
    fixed = broke = 0

    def shown(r: Record | None) -> str:
        if r is None:
            return "[dim]not run[/]"
        mark = "[green]pass[/]" if r.passed else "[red]fail[/]"
        return f"{mark} {escape(r.status)}"

    for key in keys:
        x, y = before.get(key), after.get(key)
        if x is not None and y is not None:
            fixed += y.passed and not x.passed
            broke += x.passed and not y.passed
        changed = x is None or y is None or x.passed != y.passed or x.status != y.status
        if not changed:
            continue
        tokens = f"{x.tokens:,} → {y.tokens:,}" if x and y else ""
        wall = f"{x.wall_s:.0f} → {y.wall_s:.0f}" if x and y else ""
        name = key[0] + (f" #{key[2] + 1}" if max(a.repeat, b.repeat) > 1 else "")
        table.add_row(escape(name), key[1], shown(x), shown(y), tokens, wall)
    if table.row_count:
        console.print(table)
    else:
        console.print("no answer changed its verdict or how it ended")
    totals = Table(title="totals: before → after", title_justify="left")
    for col in ("arm", "passed", "false successes", "tokens/solved", "wall s/solved", "calls"):
        totals.add_column(col, justify="left" if col == "arm" else "right")
    ta = {t.arm: t for t in a.totals()}
    tb = {t.arm: t for t in b.totals()}
    for arm in [*a.arms, *[x for x in b.arms if x not in a.arms]]:
        p, q = ta.get(arm), tb.get(arm)

        def pair(f: str, fmt: str, p: Totals | None = p, q: Totals | None = q) -> str:
            left = _opt(getattr(p, f), fmt) if p else "—"
            right = _opt(getattr(q, f), fmt) if q else "—"
            return f"{left} → {right}"

        passed = f"{p.passed}/{p.cases}" if p else "—"
        passed += " → " + (f"{q.passed}/{q.cases}" if q else "—")
        totals.add_row(
            arm,
            passed,
            pair("false_successes", "d"),
            pair("tokens_per_solved", ",.0f"),
            pair("wall_per_solved", ".1f"),
            pair("calls", "d"),
        )
    console.print(totals)
    console.print(f"{fixed} answer(s) now pass, {broke} no longer pass")
    for arm in [*a.arms, *[x for x in b.arms if x not in a.arms]]:
        gained = sum(
            after[k].passed and not before[k].passed
            for k in keys
            if k[1] == arm and k in before and k in after
        )
        lost = sum(
            before[k].passed and not after[k].passed
            for k in keys
            if k[1] == arm and k in before and k in after
        )
        if gained or lost:
            chance = mcnemar(gained, lost)
            beyond = "beyond" if chance < 0.05 else "within"
            console.print(
                f"{arm}: +{gained} −{lost} on the same answers; exact McNemar p = {chance:.3g} "
                f"({beyond} chance at 5 %)"
            )
    return fixed, broke


def mcnemar(gained: int, lost: int) -> float:
    """Two-sided exact McNemar p-value: how likely a split of the changed answers at least
    this uneven is when the change made no difference."""
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2.0 * float(tail))
