"""``society train``: evolve the roles' instructions on a suite's train cases (and people's
feedback suites), adopted only when val shows them better; ``society rate``: a person's
rating of a run, kept as a case of a feedback suite."""

# No `from __future__ import annotations`: typer reads the annotations (see society.cli).
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from society.cli.model_options import ModelOptions, model_options
from society.cli.support import EXIT_BAD_INPUT, EXIT_FAILED, fail, guarded, load_or_exit_with, out

if TYPE_CHECKING:
    from society.eval.suite import Case, Suite

__all__ = ["rate_command", "train_command"]


def _cases(suite: "Suite", half: str) -> list["Case"]:
    cases = [c for c in suite.cases if c.split == half]
    if not cases:
        text = f"suite {suite.name!r} has no {half} cases (give a split suite, or --val)"
        raise fail(text, EXIT_BAD_INPUT)
    return cases


@model_options(temperature=0.0)
def train_command(
    models: ModelOptions,
    suite_path: Annotated[Path, typer.Argument(metavar="SUITE", help="A split suite file")],
    val: Annotated[
        Path | None,
        typer.Option("--val", help="Decide adoption on this suite's val cases (default: SUITE's)"),
    ] = None,
    feedback: Annotated[
        list[Path] | None,
        typer.Option("--feedback", help="A feedback suite (`society rate`) to train on too"),
    ] = None,
    reflection_model: Annotated[
        str | None, typer.Option(help="The model that edits instructions (default: --model)")
    ] = None,
    reflection_base_url: Annotated[
        str | None, typer.Option(help="Its server (default: --base-url)")
    ] = None,
    components: Annotated[
        str, typer.Option(help="Which instructions to train: planner, coder, verifier")
    ] = "coder,verifier",
    budget: Annotated[
        int, typer.Option(min=1, help="Case runs while training (GEPA's metric calls)")
    ] = 40,
    wall_minutes: Annotated[
        float, typer.Option(min=0.1, help="Stop proposing after this long (val still runs)")
    ] = 60.0,
    minibatch: Annotated[int, typer.Option(min=1, help="Cases per reflection")] = 3,
    front: Annotated[int, typer.Option(min=1, help="Train cases of GEPA's Pareto front")] = 8,
    seed: Annotated[int, typer.Option(help="GEPA's seed and the front's draw")] = 0,
    folder: Annotated[
        Path | None,
        typer.Option("--dir", help="The training's folder; give an earlier one to resume it"),
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="Where an adopted prompt set goes (default: in --dir)"),
    ] = None,
    case_timeout: Annotated[
        float | None, typer.Option(min=1.0, help="Seconds one society run may take")
    ] = None,
    val_before: Annotated[
        Path | None,
        typer.Option(
            help="Results of `society eval --split val` with the built-in instructions, same "
            "model: the comparison's first half, not run again"
        ),
    ] = None,
) -> None:
    """Evolve the roles' instructions with GEPA on SUITE's train cases; adopt the result only
    when, on the val cases, it gets more right with no more false successes (exit 0 when
    adopted, 1 when refused)."""
    from society.eval.suite import load_suite
    from society.models.factory import ModelFactory
    from society.run.prompt_set import COMPONENTS

    chosen = tuple(c.strip() for c in components.split(",") if c.strip())
    unknown = [c for c in chosen if c not in COMPONENTS]
    if unknown or not chosen:
        text = f"--components takes {', '.join(COMPONENTS)}, not {components!r}"
        raise fail(text, EXIT_BAD_INPUT)
    suite = load_or_exit_with(load_suite, suite_path)
    train_cases = _cases(suite, "train")
    val_suite = load_or_exit_with(load_suite, val) if val is not None else suite
    val_cases = _cases(val_suite, "val")
    for path in feedback or []:
        more = load_or_exit_with(load_suite, path)
        train_cases += [c for c in more.cases if c.split != "val"]
    override = models.spec()
    reflecting = reflection_model or models.model
    if reflecting:  # the reflection model: the server's temperature and the role's limits
        plain = replace(models, max_tokens=None, timeout=None, temperature=None)
        spec = plain.spec_of(reflecting, reflection_base_url or models.base_url)
    else:
        spec = suite.defaults.models["default"]
    reflection = ModelFactory({"reflection": spec}, {}).build("reflection", "reflector")
    before = None
    if val_before is not None:
        from society.eval.results import ResultsError, load_results
        from society.learning.train import usable_before

        try:
            before = load_results(val_before)
        except ResultsError as exc:
            raise fail(str(exc), EXIT_BAD_INPUT) from None
        why = usable_before(before, val_cases, models.model or spec.model_name())
        if why is not None:
            text = f"--val-before {val_before}: {why}"
            raise fail(text, EXIT_BAD_INPUT)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    where = folder or Path("runs") / f"train-{suite.name}-{stamp}"
    from society.learning.train import TrainSettings, train

    settings = TrainSettings(
        train_cases=train_cases,
        val_cases=val_cases,
        suite=suite,
        folder=where.resolve(),
        reflection=reflection,
        components=chosen,  # type: ignore[arg-type]
        override=override,
        model_label=models.model or spec.model_name(),
        reflection_label=reflecting or spec.model_name(),
        base_url=models.base_url,
        budget=budget,
        wall_s=wall_minutes * 60,
        minibatch=minibatch,
        pareto=front,
        seed=seed,
        case_timeout_s=case_timeout,
        command="society train " + str(suite_path),
        suite_path=str(suite_path),
        val_before=before,
    )
    report = guarded(lambda: train(settings, out.real))
    table = ""
    if report.before is not None and report.after is not None:
        b, a = report.before, report.after
        table = (
            f"\nval ({b.cases} cases): built-in {b.right} right, {b.false_successes} false "
            f"successes, {b.tokens:,} tokens · trained {a.right} right, {a.false_successes} "
            f"false successes, {a.tokens:,} tokens"
        )
    out.print(
        f"{'adopted' if report.adopted else 'refused'}: {report.why}{table}\n"
        f"{report.candidates} candidate(s), {report.metric_calls} metric calls "
        f"({report.case_runs} case runs here, {report.case_tokens:,} tokens; reflection "
        f"{report.reflection_tokens:,} tokens), {report.wall_s / 60:.1f} min; "
        f"files in {settings.folder}",
        highlight=False,
    )
    if report.adopted and report.prompt_set is not None:
        target = out_path or settings.folder / "prompts.json"
        report.prompt_set.save(target)
        out.print(
            f"prompt set {report.prompt_set.id}: {target} "
            f"(use it: society run SCENARIO --prompts {target})",
            highlight=False,
        )
        return
    out.print("nothing changed: no prompt set was written", highlight=False)
    raise typer.Exit(EXIT_FAILED)


def rate_command(
    run: Annotated[str, typer.Argument(metavar="RUN", help="The run's id (or its folder)")],
    score: Annotated[
        int | None, typer.Option(min=1, max=5, help="How good the answer was, 1-5")
    ] = None,
    creds: Annotated[
        Path | None,
        typer.Option(
            "--creds", help="Your credential for the run (from `society invite RUN --name YOU`)"
        ),
    ] = None,
    collect: Annotated[
        bool,
        typer.Option(
            "--collect",
            help="Instead: the ratings people gave in the run (society attach) that state "
            "the right answer, each under the name its credential gave",
        ),
    ] = False,
    remark: Annotated[str, typer.Option(help="What you would tell the society")] = "",
    expect: Annotated[
        str | None, typer.Option(help="The right answer: a number, or a text it must contain")
    ] = None,
    check: Annotated[
        str | None, typer.Option(help="A regular expression a right answer matches")
    ] = None,
    suite_path: Annotated[
        Path, typer.Option("--suite", help="The feedback suite the case goes into")
    ] = Path("runs") / "feedback.yaml",
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
) -> None:
    """Rate a run under your own credential: the run becomes a case of a feedback suite (its
    goal, values and documents; your expected value or check as its grader; your remark as
    feedback), which `society train --feedback` learns from and `society eval` can re-run."""
    from society.credentials import load_credential
    from society.errors import RunNotFound, ScenarioError
    from society.learning.feedback import FeedbackError, add_case, rated_case, rater

    folder = Path(run) if Path(run).is_dir() else runs_dir / run
    if not (folder / "scenario.json").is_file():
        text = f"no run {run!r} in {runs_dir} (give its id or its folder)"
        raise fail(text, EXIT_BAD_INPUT)
    run_id = folder.name
    if collect:
        _collect(folder, run_id, suite_path)
        return
    if score is None or creds is None:
        text = "give --score and --creds (your credential for the run), or --collect"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        by = rater(folder, run_id, load_credential(creds))
        case = rated_case(
            folder, run_id, by=by, score=score, remark=remark, expect=expect, check=check
        )
        replaced = add_case(suite_path, case)
    except (FeedbackError, RunNotFound) as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except ScenarioError as exc:
        text = f"the case would not load: {exc}"
        raise fail(text, EXIT_BAD_INPUT) from None
    said = "replaced its earlier rating in" if replaced else "added to"
    out.print(
        f"{by} rated run {run_id} {score}/5; case {case['id']} {said} {suite_path}\n"
        f"train on it: society train SUITE --feedback {suite_path}; "
        f"re-run it: society eval {suite_path}",
        highlight=False,
    )


def _collect(folder: Path, run_id: str, suite_path: Path) -> None:
    """The run's logged ratings that state the right answer, as feedback cases (their
    ``by`` was checked against the sender's credential when they were said)."""
    from bus.logfile import read_jsonl
    from bus.payloads import Rating
    from society.errors import RunNotFound, ScenarioError
    from society.learning.feedback import FeedbackError, add_case, rated_case

    ratings = [
        r.envelope.payload
        for r in read_jsonl(folder / "log.jsonl").records
        if r.envelope is not None and isinstance(r.envelope.payload, Rating)
    ]
    usable = [r for r in ratings if r.expect is not None or r.check is not None]
    for rating in usable:
        try:
            case = rated_case(
                folder,
                run_id,
                by=rating.by,
                score=rating.score,
                remark=rating.comment,
                expect=rating.expect,
                check=rating.check,
            )
            add_case(suite_path, case)
        except (FeedbackError, RunNotFound, ScenarioError) as exc:
            text = f"{rating.by}'s rating: {exc}"
            raise fail(text, EXIT_BAD_INPUT) from None
        out.print(f"{rating.by} rated run {run_id} {rating.score}/5: kept in {suite_path}")
    left = len(ratings) - len(usable)
    out.print(
        f"{len(usable)} rating(s) kept as cases; {left} without a right answer stay "
        "feedback in memory",
        highlight=False,
    )
