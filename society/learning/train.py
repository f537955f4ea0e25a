"""``society train``: reflective prompt evolution (GEPA) of the roles' instructions on a
suite's train cases, adopted only when a paired comparison on its val cases shows the
result better — more cases right and no more false successes.

GEPA (the ``gepa`` package) keeps the Pareto front across cases, picks parents from it,
asks the reflection model for an edited instruction from the cases' feedback, and keeps a
child only when it scores better on the same minibatch. Its own front is scored on a
sample of the train cases (never on val). Its state and every scored case are saved in
the training's folder, so a killed training resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autogen_core.models import UserMessage
from gepa.api import optimize
from gepa.utils.stop_condition import TimeoutStopCondition
from rich.console import Console
from rich.markup import escape

from roles.model_access import ModelAccess
from society.eval.context import LoopSettings
from society.eval.learned import program_of
from society.eval.results import EvalResults, Record
from society.eval.runner import EvalSettings, current_commit, run_eval
from society.eval.suite import Case, Suite
from society.learning.adapter import ScoreFile, SocietyAdapter
from society.models.spec import ModelSpec
from society.run.prompt_set import Component, PromptSet, Provenance, ValRow, built_in, set_id

__all__ = ["TrainReport", "TrainSettings", "adopt", "train", "usable_before", "val_row"]


@dataclass
class TrainSettings:
    """One training: what it trains on, with which models, within which budgets."""

    train_cases: list[Case]
    """The cases GEPA learns from (the suite's train split and any feedback cases)."""
    val_cases: list[Case]
    """The cases the adoption is decided on (never shown to GEPA)."""
    suite: Suite
    """The suite whose defaults (budgets, sandbox, roles) every case runs with."""
    folder: Path
    reflection: ModelAccess
    components: tuple[Component, ...] = ("coder", "verifier")
    override: ModelSpec | None = None
    model_label: str = ""
    reflection_label: str = ""
    base_url: str | None = None
    budget: int = 40
    """GEPA's metric calls: case runs while training (val's are not counted)."""
    wall_s: float = 3600.0
    """Stop proposing after this long (the val comparison still runs)."""
    minibatch: int = 3
    pareto: int = 8
    """Train cases GEPA scores every kept candidate on (its Pareto front)."""
    seed: int = 0
    case_timeout_s: float | None = None
    command: str = ""
    suite_path: str = ""
    val_before: EvalResults | None = None
    """An earlier eval of the built-in instructions on exactly the val cases, same model
    (``--val-before``): the comparison's first half, not run again."""


@dataclass
class TrainReport:
    """What one training found and decided."""

    adopted: bool
    why: str
    best: dict[str, str]
    candidates: int
    metric_calls: int
    case_runs: int
    wall_s: float
    before: ValRow | None = None
    after: ValRow | None = None
    reflection_tokens: int = 0
    """Tokens in and out of the reflection model's calls in this process."""
    case_tokens: int = 0
    """Tokens of the case runs this process made while training."""
    prompt_set: PromptSet | None = None
    files: dict[str, Path] = field(default_factory=dict)


def adopt(before: ValRow, after: ValRow) -> tuple[bool, str]:
    """Whether a trained set beats the one it was trained from on the same val cases: more
    cases right and no more false successes."""
    if after.cases != before.cases:
        return False, f"the val runs differ in cases ({after.cases} against {before.cases})"
    if after.false_successes > before.false_successes:
        return False, (
            f"more false successes on val ({after.false_successes} against "
            f"{before.false_successes})"
        )
    if after.right <= before.right:
        return False, f"not more right on val ({after.right} against {before.right})"
    return True, (
        f"more right on val ({after.right} against {before.right}), false successes "
        f"{after.false_successes} against {before.false_successes}"
    )


def usable_before(results: EvalResults, cases: list[Case], model: str) -> str | None:
    """Why an earlier eval cannot stand for the built-in instructions on ``cases`` (None:
    it can): it must be the society on exactly those cases, the same model, no prompt set."""
    society = [r for r in results.records if r.arm == "society"]
    if {r.case for r in society} != {c.id for c in cases} or len(society) != len(cases):
        return "its society records are not exactly the val cases, once each"
    if results.model != model:
        return f"its model is {results.model!r}, not {model!r}"
    if results.prompts:
        return f"it used prompt set {results.prompts}, not the built-in instructions"
    return None


def val_row(records: list[Record]) -> ValRow:
    """One arm's figures from its graded records."""
    return ValRow(
        cases=len(records),
        right=sum(r.passed for r in records),
        false_successes=sum(r.false_success for r in records),
        calls=sum(r.calls for r in records),
        tokens=sum(r.tokens for r in records),
    )


def pareto_sample(cases: list[Case], n: int, seed: int) -> list[Case]:
    """``n`` train cases spread over the kinds (round robin over shuffled kinds)."""
    rng = random.Random(f"pareto:{seed}")
    by_kind: dict[str, list[Case]] = {}
    for c in sorted(cases, key=lambda c: c.id):
        by_kind.setdefault(c.kind or "", []).append(c)
    for group in by_kind.values():
        rng.shuffle(group)
    chosen: list[Case] = []
    while len(chosen) < min(n, len(cases)):
        for group in by_kind.values():
            if group and len(chosen) < n:
                chosen.append(group.pop())
    return chosen


class _Progress:
    """GEPA's events as one line each (candidate by candidate)."""

    def __init__(self, said: Callable[[str], None], reflections: Path) -> None:
        self.said = said
        self.reflections = reflections

    def on_iteration_start(self, event: Any) -> None:
        self.said(f"iteration {event['iteration']}")

    def on_candidate_accepted(self, event: Any) -> None:
        self.said(
            f"  kept as candidate {event['new_candidate_idx']} "
            f"(minibatch score {event['new_score']:g})"
        )

    def on_candidate_rejected(self, event: Any) -> None:
        self.said(f"  not kept: minibatch {event['new_score']:g} against {event['old_score']:g}")

    def on_proposal_end(self, event: Any) -> None:
        """What the reflection model was shown and what it proposed, kept for the person."""
        record = {
            "iteration": event["iteration"],
            "prompts": {k: str(v) for k, v in event["prompts"].items()},
            "proposed": event["new_instructions"],
        }
        with self.reflections.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

    def on_valset_evaluated(self, event: Any) -> None:
        score = event.get("average_score", event.get("score", 0.0))
        self.said(f"  front cases: mean score {score:.2f}")


class _Log:
    """GEPA's own log lines, to the training's log file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def log(self, message: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(message.rstrip() + "\n")


async def train(settings: TrainSettings, console: Console) -> TrainReport:
    """Train, compare on val, decide; writes everything into ``settings.folder``."""
    started = time.monotonic()
    folder = settings.folder
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "train.log"
    loop = asyncio.get_running_loop()

    def said(text: str) -> None:
        console.print(escape(text), highlight=False)
        _Log(log).log(text)

    detail = Console(file=log.open("a", encoding="utf-8"), width=120, no_color=True)

    async def runs(
        cases: list[Case], candidate: dict[str, str], keep: Callable[[Record], None]
    ) -> None:
        prompts = PromptSet(instructions=candidate)  # type: ignore[arg-type]
        name = f"{set_id(candidate)}-{time.strftime('%H%M%S')}-{secrets.token_hex(2)}"
        await _evaluated(settings, cases, prompts, folder / "evals" / f"{name}.json", detail, keep)

    scores = ScoreFile(folder / "scores.jsonl")
    adapter = SocietyAdapter(runs, loop, scores, program_of, said)
    adapter.know(settings.train_cases)
    seed: dict[str, str] = {c: built_in()[c] for c in settings.components}
    front = pareto_sample(settings.train_cases, settings.pareto, settings.seed)
    if len(scores):
        said(f"resuming from {folder}: {len(scores)} case runs already scored")
    tokens = [0, 0]

    def reflect(prompt: str | list[dict[str, Any]]) -> str:
        text = prompt if isinstance(prompt, str) else "\n\n".join(str(m) for m in prompt)
        said("  asking the reflection model for an edited instruction")
        access = settings.reflection
        call = access.client.create(
            [UserMessage(content=text, source="user")], extra_create_args=dict(access.extra)
        )
        result = asyncio.run_coroutine_threadsafe(call, loop).result()
        tokens[0] += result.usage.prompt_tokens
        tokens[1] += result.usage.completion_tokens
        return result.content if isinstance(result.content, str) else str(result.content)

    said(
        f"training {', '.join(settings.components)} on {len(settings.train_cases)} train "
        f"cases (front: {len(front)}), budget {settings.budget} case runs, "
        f"{settings.wall_s / 60:g} min; files in {folder}"
    )

    def optimized() -> Any:  # GEPA's own thread; its result is typed by its data types
        return optimize(
            seed_candidate=seed,
            trainset=settings.train_cases,
            valset=front,
            adapter=adapter,
            reflection_lm=reflect,
            reflection_minibatch_size=settings.minibatch,
            max_metric_calls=settings.budget,
            stop_callbacks=[TimeoutStopCondition(settings.wall_s)],
            run_dir=str(folder / "gepa"),
            logger=_Log(log),
            callbacks=[_Progress(said, folder / "reflections.jsonl")],  # type: ignore[list-item]
            seed=settings.seed,
            display_progress_bar=False,
            raise_on_exception=False,
        )

    result = await asyncio.to_thread(optimized)
    best: dict[str, str] = {k: str(v) for k, v in dict(result.best_candidate).items()}
    report = TrainReport(
        adopted=False,
        why="",
        best=best,
        candidates=len(result.candidates),
        metric_calls=int(result.total_metric_calls or 0),
        case_runs=adapter.case_runs,
        wall_s=0.0,
    )
    if set_id(best) == set_id(seed):
        report.why = (
            f"no candidate scored above the built-in instructions on the {len(front)} front "
            f"cases ({report.candidates} candidate(s) kept)"
        )
    else:
        said(f"comparing on val ({len(settings.val_cases)} cases): built-in, then trained")
        before = settings.val_before or await _evaluated(
            settings, settings.val_cases, None, folder / "val-before.json", detail
        )
        trained = PromptSet(instructions=best)  # type: ignore[arg-type]
        after = await _evaluated(
            settings, settings.val_cases, trained, folder / "val-after.json", detail
        )
        report.before = val_row([r for r in before.records if r.arm == "society"])
        report.after = val_row(after.records)
        report.adopted, report.why = adopt(report.before, report.after)
    report.wall_s = round(time.monotonic() - started, 1)
    report.reflection_tokens = tokens[0] + tokens[1]
    report.case_tokens = adapter.case_tokens
    made = Provenance(
        command=settings.command,
        model=settings.model_label,
        reflection_model=settings.reflection_label,
        suite=settings.suite_path,
        commit=current_commit(),
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        metric_calls=report.metric_calls,
        wall_s=report.wall_s,
        val_before=report.before,
        val_after=report.after,
    )
    report.prompt_set = PromptSet(instructions=best, made=made).with_id()  # type: ignore[arg-type]
    report.files["candidate"] = folder / "candidate.json"
    report.prompt_set.save(report.files["candidate"])
    detail.file.close()
    return report


def _finished(out: Path, cases: list[Case]) -> EvalResults | None:
    """The results in ``out`` when they are a finished run of exactly ``cases``."""
    if not out.is_file():
        return None
    done = EvalResults.model_validate_json(out.read_text(encoding="utf-8"))
    if done.finished and {r.case for r in done.records} == {c.id for c in cases}:
        return done
    return None


async def _evaluated(
    settings: TrainSettings,
    cases: list[Case],
    prompts: PromptSet | None,
    out: Path,
    console: Console,
    keep: Callable[[Record], None] | None = None,
) -> EvalResults:
    """The cases run by the eval's society arm (with ``prompts``), graded; a complete
    results file from before a kill is read instead of run again (a partial one is run
    again from the start, in a fresh folder)."""
    done = _finished(out, cases)
    if done is not None:
        return done
    runs_dir = settings.folder / "runs" / out.stem
    await asyncio.to_thread(shutil.rmtree, runs_dir, True)
    suite = settings.suite.model_copy(update={"cases": cases})
    eval_settings = EvalSettings(
        arms=["society"],
        runs_dir=runs_dir,
        out=out,
        override=settings.override,
        model_label=settings.model_label,
        base_url=settings.base_url,
        case_timeout_s=settings.case_timeout_s,
        suite_path=settings.suite_path,
        loop=LoopSettings(),
        prompts=prompts,
    )
    results, _ = await run_eval(suite, eval_settings, console, keep)
    return results
