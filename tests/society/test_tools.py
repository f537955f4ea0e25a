"""Tools over MCP, with real MCP servers: the example's `mcp-server-fetch` reading a page
served locally (and its re-run, served from the log with the page server gone), and a
misbehaving server of our own whose tools fail, hang, flood and are forbidden."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rich.console import Console

from bus.payloads import ToolCall
from society.errors import RunError, ScenarioError
from society.replay.rerun import rerun
from society.replay.source import read_local
from society.run.runner import RunOptions
from society.scenario import load_scenario

from .conftest import ROOT, RunYaml, payloads

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(180)]

FACT = "harbour master of Port Veldra was Ilse Marrow"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def pages() -> Iterator[str]:
    """scenarios/pages served on a free local port; yields the harbour page's URL."""
    handler = functools.partial(_Quiet, directory=str(ROOT / "scenarios" / "pages"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/harbour.html"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


async def test_the_researcher_reads_a_page_with_mcp_fetch_and_the_rerun_is_identical(
    run_yaml: RunYaml, pages: str, monkeypatch: pytest.MonkeyPatch, nats_url: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("FACTS_URL", pages)
    outcome = await run_yaml(ROOT / "scenarios" / "tools.yaml")
    assert outcome.final is not None and outcome.final.answer is not None
    assert outcome.final.status == "unverified"  # a fetched page is no counted source yet
    assert "Ilse Marrow" in outcome.final.answer and "41" in outcome.final.answer
    calls: list[ToolCall] = payloads(outcome, "tool_call")
    assert len(calls) == 1
    call = calls[0]
    assert (call.server, call.tool, call.arguments) == ("fetch", "fetch", {"url": pages})
    assert call.error is None and call.result is not None and FACT in call.result
    assert outcome.state.spend.tool_calls == 1
    # the re-run serves the tool's result from the log: no page server, no fetch server
    monkeypatch.setenv("FACTS_URL", "http://127.0.0.1:9/gone.html")
    assert outcome.log_path is not None
    report = await rerun(
        read_local(outcome.log_path, scratch=tmp_path),
        RunOptions(nats_url=nats_url, runs_dir=tmp_path / "reruns", live=False),
        Console(stderr=True, width=120),
        pace=False,
    )
    assert report.divergence is None, report.divergence


def misbehaving(tools: str, calls: str, timeout_s: float = 10.0) -> str:
    return f"""
name: misbehaving_tools
goal: {{text: Call the test tools.}}
tools:
  test:
    command: {sys.executable}
    args: [{ROOT / "tests" / "mcp_tools.py"}]
    timeout_s: {timeout_s}
    max_result_chars: 1000
roles:
  planner: {{one_task_first: false}}
  researcher:
    tools: {tools}
    require_sources: false  # the tools' bounds are the point, not the answer
budgets: {{wall_s: 120, tool_calls: 10}}
script:
  planner:
    - answer:
        success_criteria: [the tools were called]
        tasks:
          - {{id: call, role: researcher, description: Call the test tools., outputs: [answer]}}
  researcher:
    - tool_calls: {calls}
    - answer: {{outputs: {{answer: done}}, summary: called them}}
"""


async def test_a_tool_that_errors_hangs_floods_or_is_forbidden_is_bounded(
    run_yaml: RunYaml,
) -> None:
    calls = (
        "[{name: echo, arguments: {text: hi}}, {name: fail, arguments: {reason: broken on purpose}},"
        " {name: hang, arguments: {seconds: 60}}, {name: big, arguments: {megabytes: 5}},"
        " {name: secret}]"
    )
    outcome = await run_yaml(misbehaving("[test.echo, test.fail, test.hang, test.big]", calls))
    assert outcome.final is not None and outcome.final.status == "unverified", outcome.final
    by_tool = {c.tool: c for c in payloads(outcome, "tool_call")}
    assert by_tool["echo"].result == "echo: hi" and by_tool["echo"].error is None
    assert by_tool["fail"].error is not None and "broken on purpose" in by_tool["fail"].error
    hang = by_tool["hang"]
    assert hang.error is not None and "timed out" in hang.error and hang.latency_s < 30
    big = by_tool["big"]
    assert big.truncated and big.size == 5_000_000 and big.result is not None
    assert len(big.result) < 1100
    assert by_tool["secret"].error is not None and "not available" in by_tool["secret"].error
    assert outcome.state.spend.tool_calls == 5


async def test_a_tool_no_server_offers_stops_the_run_before_it_starts(run_yaml: RunYaml) -> None:
    with pytest.raises(RunError, match=r"offers no tool .nope.*echo"):
        await run_yaml(misbehaving("[test.nope]", "[]"))


def test_a_tool_of_an_undeclared_server_is_a_validation_error(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(misbehaving("[web.search]", "[]"))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert "roles.researcher.tools.0" in str(error.value) and "no MCP server named 'web'" in str(
        error.value
    )


def test_web_search_is_gone_not_ignored(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: x\ngoal: {text: g}\nroles: {researcher: {web_search: true}}\n")
    with pytest.raises(ScenarioError, match="web_search"):
        load_scenario(path)
