"""A rate-limited run puts each call's wait for the limit on the record, apart from its
latency, and the views show it: the terminal summary, the web page and the trace."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from society.tracing.spans import SpanBuilder
from society.view.live import render_summary
from society.view.progress import RunState
from society.web.page import page_of

from .conftest import RunYaml, payloads, records

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]

LIMITED = """
name: limited
goal: {text: Find two facts about primes at once.}
models:
  default: {provider: scripted, rate_limit: {rpm: 30}}
roles:
  planner: {one_task_first: false}  # the planner is asked for the two research tasks
  manager: {goal_check: false}  # the waits are the point: no coder task is added
  researcher: {concurrency: 2, corpus: [corpus]}
script:
  planner:
    - answer:
        success_criteria: [found]
        tasks:
          - {id: one, role: researcher, description: Find fact one about primes., outputs: [one]}
          - {id: two, role: researcher, description: Find fact two about primes., outputs: [two]}
  researcher:  # each cites the document it read
    - {match: 'fact one', answer: {outputs: {one: "1"}, sources: [primes.md]}}
    - {match: 'fact two', answer: {outputs: {two: "2"}, sources: [primes.md]}}
"""


async def test_waits_for_a_rate_limit_are_on_the_record_and_in_the_views(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(LIMITED)
    assert outcome.exit_code == 0, outcome.final
    calls = [u for u in payloads(outcome, "usage") if u.kind == "model"]
    assert len(calls) == 3
    # a burst of one call a second at 30 rpm: the two parallel tasks cannot both go at once
    waited = [u for u in calls if u.rate_wait_s > 0.5]
    assert waited, [(u.latency_s, u.rate_wait_s) for u in calls]
    assert all(u.latency_s < 0.5 for u in calls)  # scripted answers: the wait is not latency

    envs = [r.envelope for r in records(outcome) if r.envelope is not None]
    state = RunState(outcome.run_id)
    for env in envs:
        state.apply(env)
    assert state.rate_wait_s >= waited[0].rate_wait_s
    out = io.StringIO()
    render_summary(Console(file=out, width=200), state, Path("runs/x"), None)
    assert "for rate limits" in out.getvalue()
    assert "for a rate limit)" in out.getvalue()  # on the task that waited

    page = page_of(outcome.run_id, envs).to_json(writable=False)
    assert page["rate_wait_s"] > 0.5
    assert any(t["rate_wait_s"] > 0.5 for t in page["tasks"])

    builder = SpanBuilder()
    spans = [s for env in envs for s in builder.take(env)]
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert any(s.attributes.get("society.rate_limit.wait_s", 0) > 0.5 for s in chats)
