"""The loop of an eval: every selected case, every repeat, every arm — answered, graded,
recorded, and the results file rewritten after each, with a line of progress.

Before any case starts, every model the arms will call is built and its server reached
(`preflight`), and the sandbox is started: a typo or a server that is down costs seconds,
not an eval.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from bus.verdicts import Drawn
from roles.execution import CodeRunner
from sandbox import Sandbox
from sandbox.manifest import read_manifest
from society.errors import RunError
from society.eval.arms import MODEL_FREE, arm_named
from society.eval.context import (
    Answered,
    CallCache,
    CaseContext,
    EvalContext,
    LoopSettings,
    VoteSettings,
)
from society.eval.graders import Grade, Submission, grade_all
from society.eval.progress import Tally
from society.eval.results import EvalResults, Other, Record, load_results, resumed
from society.eval.suite import Case, Split, Suite
from society.models.factory import ModelFactory
from society.models.preflight import preflight
from society.models.spec import ModelSpec

if TYPE_CHECKING:
    from society.run.prompt_set import PromptSet

__all__ = ["EvalSettings", "run_eval", "select_cases"]


@dataclass
class EvalSettings:
    """How to run an eval."""

    arms: list[str] = field(default_factory=lambda: ["society", "program"])
    repeat: int = 1
    only: list[str] = field(default_factory=list)
    split: Split | None = None
    """Only this half of a split suite."""
    seed: int = 0
    """Sampled arms draw repeat ``r`` from ``seed + 100 * r`` on."""
    runs_dir: Path = Path("runs")
    out: Path | None = None
    override: ModelSpec | None = None
    model_label: str = ""
    base_url: str | None = None
    case_timeout_s: float | None = None
    suite_path: str = ""
    loop: LoopSettings = field(default_factory=LoopSettings)
    """The ``loop`` baseline's limits (recorded in the results' settings)."""
    vote: VoteSettings = field(default_factory=VoteSettings)
    """The ``vote`` baseline's samples (recorded in the results' settings)."""
    settings: dict[str, str | int | float | bool | None] = field(default_factory=dict)
    memory_from: Path | None = None
    """Every case's society starts with a copy of this memory (default: an empty one)."""
    prompts: PromptSet | None = None
    """The society's roles use this prompt set (default: their built-in instructions)."""
    sets: dict[str, Any] = field(default_factory=dict)
    """``--set``: role settings every case's society runs with."""
    resume: bool = False
    """Carry on the results at ``out``: keep its answers, give only those it lacks."""


def select_cases(suite: Suite, only: list[str], split: Split | None = None) -> list[Case]:
    """The cases named in ``only`` (all when empty), of ``split`` when given; an unknown
    name, or a split of a suite that has none, is a `RunError`."""
    cases = list(suite.cases)
    if split is not None:
        if not any(c.split for c in cases):
            msg = f"suite {suite.name!r} is not split into train and val (no case has a split)"
            raise RunError(msg)
        cases = [c for c in cases if c.split == split]
    if not only:
        return cases
    known = {c.id for c in suite.cases}
    unknown = [c for c in only if c not in known]
    if unknown:
        listed = ", ".join(sorted(known)[:30])
        msg = f"no case {', '.join(map(repr, unknown))} in suite {suite.name!r} (cases: {listed})"
        raise RunError(msg)
    outside = [c for c in only if c not in {x.id for x in cases}]
    if outside:
        msg = f"case(s) {', '.join(map(repr, outside))} are not in the {split} split"
        raise RunError(msg)
    return [c for c in cases if c.id in set(only)]


def current_commit(where: Path | None = None) -> str:
    """The short commit of the checkout the running code comes from (``where``, default this
    package's), ``+dirty`` when its tracked files differ from it; empty outside git. Not the
    working directory's: an eval run from another folder, or from a frozen clone, records the
    code that answered."""
    folder = where or Path(__file__).resolve().parents[2]

    def git(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(
                ["git", "-C", str(folder), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    head = git("rev-parse", "--short", "HEAD")
    if head is None or head.returncode != 0:
        return ""
    changed = git("status", "--porcelain", "--untracked-files=no")
    dirty = changed is not None and changed.returncode == 0 and changed.stdout.strip() != ""
    return head.stdout.strip() + ("+dirty" if dirty else "")


async def _check_models(suite: Suite, settings: EvalSettings) -> None:
    """Build every client the arms will call and reach its server (raises
    `ModelConfigError` before anything starts)."""
    models = dict(suite.defaults.models)
    if settings.override is not None:
        models = dict.fromkeys(models, settings.override)
    factory = ModelFactory(models, {})
    uses = [(m, r) for r, m in suite.defaults.roles.model_names().items()]
    if "society" not in settings.arms:
        uses = []
    coder_model = suite.defaults.roles.coder.model
    uses += [
        (coder_model, arm) for arm in settings.arms if arm != "society" and arm not in MODEL_FREE
    ]
    await preflight(factory, uses)


async def _graded(case: Case, drawn: Drawn, code: CodeRunner) -> Other:
    """Another value an arm drew, graded by the case's graders as if it were the answer."""
    grades = await grade_all(case.graders, Submission(drawn.value), case.inputs, code)
    right = bool(grades) and all(g.passed for g in grades)
    return Other(value=drawn.value, views=drawn.views, check=drawn.check, passed=right)


def _record(
    case: Case,
    arm: str,
    repeat: int,
    answered: Answered,
    grades: list[Grade],
    others: list[Other] | None = None,
) -> Record:
    answer = answered.submission.answer
    return Record(
        case=case.id,
        kind=case.kind,
        arm=arm,
        repeat=repeat,
        passed=bool(grades) and all(g.passed for g in grades),
        status=answered.status,
        reason=answered.reason[:500],
        answer=answer[:2000] if answer else None,
        grades=grades,
        calls=answered.calls,
        tokens_in=answered.tokens_in,
        tokens_out=answered.tokens_out,
        cost=answered.cost,
        wall_s=answered.wall_s,
        run_id=answered.run_id,
        folder=str(answered.folder) if answered.folder else None,
        confidence=answered.confidence,
        views=answered.views,
        roles=answered.roles,
        others=others or [],
    )


def _line(record: Record) -> str:
    mark = "[green]pass[/]" if record.passed else "[red]fail[/]"
    false = " [yellow](false success)[/]" if record.false_success else ""
    why = "" if record.passed else next((g.detail for g in record.grades if not g.passed), "")
    why = f" [dim]— {escape(why[:100])}[/]" if why else ""
    return (
        f"{mark} {escape(record.status)}{false} · {record.calls} calls · "
        f"{record.tokens:,} tokens · {record.wall_s:.1f}s{why}"
    )


async def run_eval(
    suite: Suite,
    settings: EvalSettings,
    console: Console,
    on_record: Callable[[Record], None] | None = None,
) -> tuple[EvalResults, Path]:
    """Run the eval; returns its results and where they were written."""
    for arm in settings.arms:
        arm_named(arm)  # an unknown arm stops the eval before anything starts
    cases = select_cases(suite, settings.only, settings.split)
    await _check_models(suite, settings)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    folder = (settings.runs_dir / f"eval-{suite.name}-{stamp}-{secrets.token_hex(2)}").resolve()
    out = settings.out or folder / "results.json"
    results = EvalResults(
        suite=suite.name,
        suite_path=settings.suite_path,
        model=settings.model_label,
        base_url=settings.base_url,
        arms=settings.arms,
        repeat=settings.repeat,
        only=settings.only,
        split=settings.split,
        seed=settings.seed,
        memory=(
            "per-case" if settings.memory_from is None else f"per-case from {settings.memory_from}"
        ),
        prompts=settings.prompts.with_id().id if settings.prompts is not None else "",
        commit=current_commit(),
        started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        folder=str(folder),
        settings=settings.settings,
    )
    if settings.resume and out.is_file():
        results = resumed(load_results(out), results)
    folder.mkdir(parents=True, exist_ok=True)
    answered = {(r.case, r.arm, r.repeat) for r in results.records}
    wanted = [
        (repeat, case, arm)
        for repeat in range(settings.repeat)
        for case in cases
        for arm in settings.arms
        if (case.id, arm, repeat) not in answered
    ]
    results.save(out)
    total = len(wanted)
    kept = f"; {len(results.records)} kept from {out}" if settings.resume else ""
    console.print(
        f"[bold]eval {escape(suite.name)}{f' ({settings.split})' if settings.split else ''}[/]: "
        f"{len(cases)} cases × {settings.repeat} × "
        f"{', '.join(settings.arms)} on {escape(settings.model_label)} — {total} answers"
        f"{escape(kept)}; files in {folder}",
        highlight=False,
    )
    console.print("[dim]starting the sandbox…[/]")
    done = 0
    tally = Tally.of(settings.arms, (arm for _, _, arm in wanted), results.records)
    async with Sandbox(
        suite.defaults.sandbox, label=folder.name[:40], wait_for_removal=False
    ) as sb:
        settings_sb = suite.defaults.sandbox
        libraries = settings_sb.manifest or await asyncio.to_thread(
            read_manifest, settings_sb.image, settings_sb.docker_host
        )
        ctx = EvalContext(
            folder,
            sb,
            settings.override,
            settings.case_timeout_s,
            settings.loop,
            libraries,
            CallCache(),
            settings.seed,
            settings.memory_from,
            settings.prompts,
            settings.vote,
            settings.sets,
        )
        for repeat, case, arm in wanted:
            done += 1
            console.print(
                f"[{done}/{total}] {escape(case.id)} · {arm}"
                + (f" · repeat {repeat + 1}" if settings.repeat > 1 else "")
                + " …",
                highlight=False,
            )
            cx = CaseContext(ctx, suite, repeat, arm)
            began = time.monotonic()
            given = await _answered(case, cx)
            grades = await grade_all(case.graders, given.submission, case.inputs, sb)
            others = [await _graded(case, d, sb) for d in given.others]
            record = _record(case, arm, repeat, given, grades, others)
            results.records.append(record)
            results.save(out)
            tally.add(record, time.monotonic() - began)
            console.print(f"    {_line(record)}", highlight=False)
            console.print(f"    [dim]{escape(tally.line())}[/]", highlight=False)
            if on_record is not None:
                on_record(record)
    results.finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results.save(out)
    return results, out


async def _answered(case: Case, cx: CaseContext) -> Answered:
    """The arm's answer; whatever breaks is this case's answer (``crashed``), not the eval's."""
    started = time.monotonic()
    try:
        return await arm_named(cx.arm)(case, cx)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        wall = round(time.monotonic() - started, 3)
        return Answered(Submission(""), "crashed", reason, wall_s=wall)
