"""OpenTelemetry traces of runs, received by an OTLP/HTTP receiver that decodes them with
the official protobuf definitions: a live quickstart run is one trace with a span per
task attempt and per model call (GenAI token attributes, parents right); `society trace`
on its log afterwards sends the same spans; a worker process's spans join the trace."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox import DEFAULT_IMAGE
from society.cli.main import app
from society.logs import configure_logging
from society.tracing.spans import trace_id_of
from tests.conftest import docker_ready, require
from tests.otlp_receiver import Span, otlp_receiver

from .conftest import ROOT, RunYaml, payloads
from .replay.logs import write
from .test_distributed import run_external
from .workers import workers

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]


@pytest.fixture(autouse=True)
def _logs_to_this_stderr() -> None:
    configure_logging("console", "warning")


def shape(spans: list[Span]) -> set[tuple[str, str, str, str]]:
    return {(s.trace_id, s.span_id, s.parent_id, s.name) for s in spans}


def check_run_trace(spans: list[Span], run_id: str, tasks: int, calls: int) -> None:
    """One trace; a root run span; a span per task attempt and model call, parents known."""
    assert {s.trace_id for s in spans} == {f"{trace_id_of(run_id):032x}"}
    ids = {s.span_id for s in spans}
    assert len(ids) == len(spans), "a span was sent twice"
    roots = [s for s in spans if not s.parent_id]
    assert [r.name for r in roots] == ["run"]
    assert roots[0].attributes["society.run.status"] == "succeeded"
    for s in spans:
        assert not s.parent_id or s.parent_id in ids, f"{s.name}: parent not in the trace"
        assert s.start_ns <= s.end_ns
    by_id = {s.span_id: s for s in spans}
    task_spans = [s for s in spans if s.name.startswith("task ")]
    assert len(task_spans) == tasks
    for t in task_spans:
        assert by_id[t.parent_id].name.startswith("plan revision ")
    model = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(model) == calls
    for m in model:
        assert m.attributes["gen_ai.usage.input_tokens"] > 0
        assert m.attributes["gen_ai.usage.output_tokens"] > 0
        assert m.attributes["gen_ai.request.model"]
        assert m.kind == 3  # SPAN_KIND_CLIENT
        parent = by_id[m.parent_id].name
        assert parent.startswith(("task ", "plan revision ")), parent


@pytest.mark.docker
async def test_a_run_is_one_trace_live_and_again_from_its_log(
    run_yaml: RunYaml, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok, why = docker_ready(DEFAULT_IMAGE)
    require(ok, why)
    with otlp_receiver() as live:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", live.url)
        outcome = await run_yaml(ROOT / "scenarios" / "quickstart.yaml")
        assert outcome.exit_code == 0, outcome.final
        tasks = len(payloads(outcome, "task"))
        calls = sum(1 for u in payloads(outcome, "usage") if u.kind == "model")
        assert tasks >= 3 and calls >= 4
        # the processor sends from its own thread; the run's end flushed it
        spans = live.wait_for(lambda s: any(x.name == "run" for x in s))
    check_run_trace(spans, outcome.run_id, tasks, calls)
    execs = [s for s in spans if s.name == "sandbox execute"]
    assert execs and all(by.parent_id for by in execs)
    assert {s.resource["society.process"] for s in spans} == {"runner"}

    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
    with otlp_receiver() as later:
        result = await asyncio.to_thread(
            CliRunner().invoke, app, ["trace", str(outcome.run_dir), "--otlp", later.url]
        )
        assert result.exit_code == 0, result.output
        assert f"exported {len(spans)} spans" in result.output
        again = later.spans
    assert shape(again) == shape(spans)  # the same ids, names and parents
    assert {s.resource["society.process"] for s in again} == {"trace"}


def test_trace_says_when_no_receiver_answers(tmp_path: Path) -> None:
    log = write(tmp_path / "log.jsonl")
    result = CliRunner().invoke(app, ["trace", str(log), "--otlp", "http://127.0.0.1:9"])
    assert result.exit_code == 1
    assert "did not take the spans" in result.output


def test_trace_needs_an_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    result = CliRunner().invoke(app, ["trace", str(write(tmp_path / "log.jsonl"))])
    assert result.exit_code == 2
    assert "no OTLP endpoint: give --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT" in result.output


TWO_STEPS = """
name: traced
goal: {text: Find two facts.}
models: {default: {provider: scripted}}
presence: {heartbeat_s: 0.5}
roles:  # the team's plan of two research steps, each a span of a worker, and no coder
  planner: {one_task_first: false}
  manager: {goal_check: false}
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer:
        success_criteria: [found]
        tasks:
          - {id: first, role: researcher, description: Find the first fact about primes., outputs: [one]}
          - {id: second, role: researcher, description: Find the second fact about primes., outputs: [two], depends_on: [first]}
  researcher:
    - match: first fact
      answer: {outputs: {one: "one"}, sources: [primes.md]}
    - match: second fact
      answer: {outputs: {two: "two"}, sources: [primes.md]}
"""


async def test_a_worker_process_sends_its_spans_into_the_runs_trace(
    nats_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        specs = [("planner", "wp", nats_url), ("researcher", "wr", nats_url)]
        async with workers(specs, run_id=run_id, runs_dir=tmp_path / "w"):
            outcome = await asyncio.wait_for(
                run_external(TWO_STEPS, nats_url, run_id, tmp_path), 90
            )
            assert outcome.exit_code == 0, outcome.final
            # the workers' spans come from their processes (each flushes as it stops)
        spans = receiver.wait_for(
            lambda s: (
                sum(x.resource.get("society.process", "").startswith("worker-") for x in s) >= 5
            )
        )
    processes = Counter(s.resource["society.process"] for s in spans)
    assert set(processes) == {"runner", "worker-planner-wp", "worker-researcher-wr"}
    check_run_trace(spans, run_id, tasks=2, calls=3)
    from_worker = {s.name for s in spans if s.resource["society.process"] != "runner"}
    assert {"task first", "task second"} <= from_worker  # their attempts, from their side
    assert any(n.startswith("chat ") for n in from_worker)
