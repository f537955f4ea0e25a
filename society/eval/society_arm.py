"""The society as an arm of an eval: the case's scenario run by `run_scenario`, exactly as
``society run`` runs a scenario file (its own run folder and log, so it can be replayed),
with the eval's sandbox lent to it and long-term memory of its own.

A run that crashes, exceeds its time or stops without a final message is an answer too
(status ``crashed``, ``timeout``, ``no final``): it is graded like any other, and the eval
goes on.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from rich.console import Console

from roles.execution import CodeRunner
from roles.memory import MEMORY_FILE
from society.eval.context import Answered, CaseContext, EvalContext
from society.eval.graders import Submission
from society.eval.overrides import with_sets
from society.eval.suite import Case
from society.run.prompt_set import applied
from society.scenario import Scenario

__all__ = ["run_society", "society"]

GRACE_S = 30.0
"""How long past a case's wall budget the runner waits for its final message."""
SLACK_S = 120.0
"""How long past that the eval waits for a run to end before it counts as ``timeout``."""


async def society(case: Case, cx: CaseContext) -> Answered:
    """The ``society`` arm: the case's scenario, run as ``society run`` would run it."""
    return await run_society(cx.suite.scenario_of(case), f"{case.id}-r{cx.repeat}", cx.eval)


@asynccontextmanager
async def _lent(code: CodeRunner) -> AsyncIterator[CodeRunner]:
    """The eval's sandbox, lent to one run (the run does not close it)."""
    yield code


def _artifacts(run_dir: Path, paths: list[tuple[str, str]]) -> dict[str, bytes]:
    files = {}
    for name, rel in paths:
        target = (run_dir / rel).resolve()
        if target.is_relative_to(run_dir.resolve()) and target.is_file():
            files[name] = target.read_bytes()
    return files


async def run_society(scenario: Scenario, run_id: str, ctx: EvalContext) -> Answered:
    """Run ``scenario`` as `society run` would; its console output goes to
    ``<run folder>/console.txt``."""
    from society.run.runner import RunOptions, run_scenario  # the run loads only when used

    runs = ctx.folder / "runs"
    run_dir = runs / run_id
    run_dir.mkdir(parents=True, exist_ok=True)

    def lend(_scenario: Scenario, _run_id: str) -> AbstractAsyncContextManager[CodeRunner]:
        return _lent(ctx.code)

    memory_dir = ctx.folder / "memory" / run_id
    if ctx.memory_from is not None:
        memory_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ctx.memory_from / MEMORY_FILE, memory_dir / MEMORY_FILE)
        coder = scenario.roles.coder
        if coder.solutions == 0:  # --memory asks for its solutions to be recalled
            coder = coder.model_copy(update={"solutions": 1})
            roles = scenario.roles.model_copy(update={"coder": coder})
            scenario = scenario.model_copy(update={"roles": roles})
    options = RunOptions(
        runs_dir=runs,
        run_id=run_id,
        model_override=ctx.override,
        memory_dir=memory_dir,
        live=True,
        sandbox_factory=lend,
        grace_s=GRACE_S,
    )
    if ctx.prompts is not None:
        scenario = applied(scenario, ctx.prompts)
    if ctx.sets:
        scenario = with_sets(scenario, ctx.sets)
    if scenario.sandbox.manifest is None and ctx.libraries is not None:
        sandbox = scenario.sandbox.model_copy(update={"manifest": ctx.libraries})
        scenario = scenario.model_copy(update={"sandbox": sandbox})
    wall = scenario.budgets.wall_s
    limit = ctx.case_timeout_s or ((wall + GRACE_S + SLACK_S) if wall else None)
    started = time.monotonic()
    with (run_dir / "console.txt").open("w") as text:
        console = Console(file=text, width=120, no_color=True, highlight=False)
        try:
            async with asyncio.timeout(limit):
                outcome = await run_scenario(scenario, options, console)
        except TimeoutError:
            return _from_folder(run_dir, run_id, "timeout", f"no end after {limit:g}s", started)
        except Exception as exc:  # the eval goes on; the case says what broke
            reason = f"{type(exc).__name__}: {exc}"
            console.print(f"crashed: {reason}")
            return _from_folder(run_dir, run_id, "crashed", reason, started)
    s = outcome.state
    final = outcome.final
    if final is None:
        sub = Submission("")
        status, reason = "no final", outcome.parked or "the run ended without a final message"
    else:
        arts = _artifacts(run_dir, [(a.name, a.path) for a in final.artifacts])
        sub = Submission(final.answer or "", dict(final.outputs), arts)
        status, reason = final.status, final.reason
    sure = final.verdict.confidence if final is not None and final.verdict else None
    return Answered(
        sub,
        status,
        reason,
        calls=s.calls,
        tokens_in=s.tokens_in,
        tokens_out=s.tokens_out,
        cost=s.cost,
        wall_s=round(time.monotonic() - started, 3),
        run_id=run_id,
        folder=run_dir,
        confidence=sure.score if sure is not None else None,
        views=list(sure.views) if sure is not None else [],
        roles=dict(s.role_calls),
        others=list(sure.others) if sure is not None else [],
    )


def _from_folder(run_dir: Path, run_id: str, status: str, reason: str, started: float) -> Answered:
    """A run that did not end by itself: what its summary says it spent, if it wrote one."""
    import json

    spent: dict[str, float] = {}
    summary = run_dir / "summary.json"
    if summary.is_file():
        try:
            doc = json.loads(summary.read_text())
            spent = {k: doc.get(k) or 0 for k in ("model_calls", "tokens_in", "tokens_out", "cost")}
        except (OSError, ValueError):
            spent = {}
    return Answered(
        Submission(""),
        status,
        reason,
        calls=int(spent.get("model_calls", 0)),
        tokens_in=int(spent.get("tokens_in", 0)),
        tokens_out=int(spent.get("tokens_out", 0)),
        cost=float(spent.get("cost", 0.0)),
        wall_s=round(time.monotonic() - started, 3),
        run_id=run_id,
        folder=run_dir,
    )
