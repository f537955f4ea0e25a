"""Arms of several evals side by side: each arm named with the commit (and model, where they
differ) it ran at, on the cases every one of them answered, with the per-kind, role, totals
and risk tables of one eval and each arm against the first by exact McNemar.

`society eval merge` makes one eval of pieces run apart at one commit; this is for arms that
ran at different commits, where a merged file would claim one eval that never ran."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from society.eval.arms import MODEL_FREE
from society.eval.report import (
    comparable,
    mcnemar,
    render_kinds,
    render_risk,
    render_roles,
    render_totals,
)
from society.eval.results import EvalResults, Record, ResultsError, load_results

__all__ = ["Side", "Source", "load_sources", "render_side", "side_by_side", "source_of"]


@dataclass(frozen=True)
class Source:
    """A results file and the arms of it to show (all of them when empty)."""

    path: Path
    arms: tuple[str, ...] = ()


def source_of(text: str) -> Source:
    """``results.json`` or ``results.json:arm,arm``."""
    path, sep, names = text.rpartition(":")
    if sep and path and "/" not in names and not Path(text).exists():
        chosen = tuple(a.strip() for a in names.split(",") if a.strip())
        return Source(Path(path), chosen)
    return Source(Path(text))


@dataclass(frozen=True)
class Side:
    """The arms as one eval's (named ``arm (commit)``), their records cut to the cases all
    answered; what each came from and how many of its answers were left out."""

    results: EvalResults
    sources: dict[str, str]
    """Per arm's name: the file it came from."""
    left_out: dict[str, int]
    """Per arm's name: its answers on cases some other arm did not answer."""


def side_by_side(parts: list[tuple[Source, EvalResults]]) -> Side:
    """The arms of ``parts`` side by side. Raises `ResultsError` when the evals ran different
    suites or splits, an arm asked for is not in its file, or one arm (at one commit and
    model) comes from two files (merge those first), or no case was answered by all."""
    if not parts:
        msg = "no results to put side by side"
        raise ResultsError(msg)
    first = parts[0][1]
    for source, results in parts[1:]:
        why = comparable(first, results)
        if why is not None:
            msg = f"not side by side: {source.path}: {why}"
            raise ResultsError(msg)
    # a model-free arm (code alone) is named by its commit only, and makes no models differ
    models = {r.model for s, r in parts if not set(s.arms or r.arms) <= MODEL_FREE}
    named: dict[str, list[Record]] = {}
    sources: dict[str, str] = {}
    for source, results in parts:
        missing = [a for a in source.arms if a not in results.arms]
        if missing:
            msg = f"{source.path}: no arm {', '.join(missing)} (it has {', '.join(results.arms)})"
            raise ResultsError(msg)
        for arm in source.arms or tuple(results.arms):
            at = results.commit[:7] or "?"
            model = len(models) > 1 and arm not in MODEL_FREE
            name = f"{arm} ({at}{', ' + results.model if model else ''})"
            if name in named:
                msg = (
                    f"not side by side: {name} is in {sources[name]} and {source.path}; "
                    "merge them first (society eval merge)"
                )
                raise ResultsError(msg)
            named[name] = [r for r in results.records if r.arm == arm]
            sources[name] = str(source.path)
    keys = [{(r.case, r.repeat) for r in recs} for recs in named.values()]
    common = set.intersection(*keys)
    if not common:
        msg = "not side by side: no case was answered by every arm"
        raise ResultsError(msg)
    order = {key: n for n, key in enumerate((r.case, r.repeat) for r in next(iter(named.values())))}
    records = [
        r.model_copy(update={"arm": name})
        for name, recs in named.items()
        for r in sorted(
            (r for r in recs if (r.case, r.repeat) in common),
            key=lambda r: order[(r.case, r.repeat)],
        )
    ]
    commits = dict.fromkeys(r.commit[:7] for _, r in parts if r.commit)
    merged = first.model_copy(
        update={
            "arms": list(named),
            "records": records,
            "model": ", ".join(sorted(models)) or "none",
            "commit": ", ".join(commits),
            "folder": " + ".join(str(s.path) for s, _ in parts),
            "settings": {},
        }
    )
    left = {name: len(recs) - len(common) for name, recs in named.items()}
    return Side(merged, sources, left)


def render_side(console: Console, side: Side) -> None:
    """Where each arm came from, the tables, and each arm against the first."""
    whole = side.results
    cases = len({(r.case, r.repeat) for r in whole.records})
    console.print(
        escape(f"{whole.suite}: {len(whole.arms)} arms on the {cases} answers all of them gave"),
        highlight=False,
    )
    for name, path in side.sources.items():
        cut = f" ({side.left_out[name]} answers left out)" if side.left_out[name] else ""
        console.print(escape(f"  {name}: {path}{cut}"), highlight=False)
    render_kinds(console, whole)
    render_roles(console, whole)
    render_totals(console, whole.totals())
    render_risk(console, whole)
    base, *rest = whole.arms
    mine = {(r.case, r.repeat): r.passed for r in whole.records if r.arm == base}
    for arm in rest:
        theirs = {(r.case, r.repeat): r.passed for r in whole.records if r.arm == arm}
        ahead = sum(p and not theirs[k] for k, p in mine.items())
        behind = sum(theirs[k] and not p for k, p in mine.items())
        chance = mcnemar(ahead, behind)
        beyond = "beyond" if chance < 0.05 else "within"
        console.print(
            escape(
                f"{base} against {arm}: right on {ahead} it missed, missed {behind} it got; "
                f"exact McNemar p = {chance:.3g} ({beyond} chance at 5 %)"
            ),
            highlight=False,
        )


def load_sources(texts: list[str]) -> list[tuple[Source, EvalResults]]:
    """Each ``file[:arm,arm]`` read (`ResultsError` naming the file when one cannot be)."""
    sources = [source_of(t) for t in texts]
    return [(s, load_results(s.path)) for s in sources]
