"""Run scenarios over the session's real nats-server and the shared warm sandbox pool."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bus.logfile import LogRecord, read_jsonl
from society.run.runner import RunOptions, RunOutcome, run_scenario
from society.scenario import load_scenario

from .humans import Proc

ROOT = Path(__file__).resolve().parents[2]
RunYaml = Callable[..., Awaitable[RunOutcome]]


def payloads(outcome: RunOutcome, kind: str) -> list[Any]:
    """The payloads of one type in a run's exported log, in order."""
    assert outcome.log_path is not None
    return [
        r.envelope.payload
        for r in records(outcome)
        if r.envelope and r.envelope.payload.type == kind
    ]


def records(outcome: RunOutcome) -> list[LogRecord]:
    assert outcome.log_path is not None
    read = read_jsonl(outcome.log_path)
    assert read.problems == []
    return read.records


@pytest.fixture
def run_yaml(nats_url: str, shared_sandbox: object, tmp_path: Path) -> RunYaml:
    """Write a scenario (text or an example's path) and run it; returns the outcome."""

    @contextlib.asynccontextmanager
    async def sandbox_factory(scenario: object, run_id: str) -> AsyncIterator[object]:
        yield shared_sandbox

    async def run(text_or_path: str | Path, **options: Any) -> RunOutcome:
        if isinstance(text_or_path, Path):
            path = text_or_path
        else:
            path = tmp_path / "scenario.yaml"
            path.write_text(text_or_path)
            (tmp_path / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
        scenario = load_scenario(path)
        options.setdefault("sandbox_factory", sandbox_factory)
        opts = RunOptions(
            nats_url=nats_url,
            runs_dir=tmp_path / "runs",
            memory_dir=options.pop("memory_dir", tmp_path / "memory"),
            **options,
        )

        return await run_scenario(scenario, opts, Console(stderr=True, width=120))

    return run


@pytest.fixture
async def procs() -> AsyncIterator[list[Proc]]:
    """Real ``society`` processes a test starts (appended here): stopped when it ends."""
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()
