"""Specialist roles a scenario declares: validated like the rest of the scenario, and, in a
real run (`society run`, its own nats-server and credentials, the Docker sandbox pool),
a role of its own that the planner is offered and assigns, whose result the log, `society
replay` and the web view show under its name and identity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bus.envelope import signature
from bus.logfile import read_jsonl
from bus.payloads import TaskAssignment, TaskResult, Usage
from bus.subjects import matches
from society.credentials import load_credential
from society.errors import ScenarioError
from society.scenario import load_scenario
from society.web.state import WebApp

from .conftest import ROOT

SOCIETY = [sys.executable, "-m", "society.cli"]
SCENARIO = ROOT / "scenarios" / "specialist.yaml"


def society(
    *args: str, env: dict[str, str] | None = None, timeout: float = 150
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SOCIETY, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **(env or {})},
    )


@pytest.mark.timeout(30)
def test_a_specialists_mistakes_name_the_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad\n"
        "goal: {text: compare}\n"
        "models: {default: {provider: scripted}}\n"
        "specialists:\n"
        "  - name: coder\n"
        "    takes: code\n"
        "  - name: statistician\n"
        "    takes: statistics\n"
        "    model: oracle\n"
        "    tools: [calculator]\n"
    )
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    said = {(i.line, i.field): i.message for i in caught.value.issues}
    assert "is a built-in role" in said[(5, "specialists.0.name")]
    assert "no model named 'oracle'" in said[(9, "specialists.1.model")]
    assert "no MCP server named 'calculator'" in said[(10, "specialists.1.tools.0")]
    path.write_text(path.read_text().replace("name: coder", "name: Stat Bad"))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    [issue] = caught.value.issues
    assert (issue.line, issue.field) == (5, "specialists.0.name") and "pattern" in issue.message


@pytest.mark.docker
@pytest.mark.nats
@pytest.mark.timeout(240)
async def test_the_planner_assigns_a_task_to_a_specialist_that_answers_it(tmp_path: Path) -> None:
    runs, run_id = tmp_path / "runs", "specialist-1"
    done = society("run", str(SCENARIO), "--runs-dir", str(runs), "--run-id", run_id)
    run_dir = runs / run_id
    assert (run_dir / "log.jsonl").is_file(), done.stderr[-3000:]
    read = read_jsonl(run_dir / "log.jsonl")
    assert read.problems == []
    assert not [r for r in read.records if r.envelope is None]  # nothing refused
    envs = [r.envelope for r in read.records if r.envelope is not None]

    # the planner was offered the specialist, with its line, and gave it the task
    [assigned] = [e.payload for e in envs if isinstance(e.payload, TaskAssignment)]
    assert assigned.task.role == "statistician"
    shown = society("replay", str(run_dir), "--prompt", "1")
    assert shown.returncode == 0, shown.stderr
    prompt = " ".join(shown.stdout.split())
    # (the researcher, with nothing to read, is not offered)
    assert "Roles that can do tasks: coder, statistician" in prompt
    assert "- statistician: comparing groups of numbers, tests of significance" in prompt

    # its answer is in the log under its own name, sent by its own identity
    [said] = [e for e in envs if isinstance(e.payload, TaskResult)]
    assert isinstance(said.payload, TaskResult)
    assert (said.sender, said.payload.role, said.payload.status) == (
        "statistician/0",
        "statistician",
        "done",
    )
    assert "Welch" in str(said.payload.outputs["answer"])
    credential = load_credential(run_dir / "creds" / "statistician-0.json")
    assert credential.sender == said.sender and credential.user == signature(said.sender)
    config = json.loads((run_dir / "creds" / "nats-server.json").read_text())
    users = {u["user"]: u for u in config["accounts"]["SOCIETY"]["users"]}
    publish = users[credential.user]["permissions"]["publish"]["allow"]
    assert any(matches(p, f"society.{run_id}.result") for p in publish)
    assert not any(matches(p, f"society.{run_id}.plan") for p in publish)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "unverified"  # nothing checked the specialist's answer
    assert "Welch" in summary["answer"]

    # `society replay` shows it
    timeline = society("replay", str(run_dir / "log.jsonl"))
    assert timeline.returncode == 0, timeline.stderr
    rows = [r for r in timeline.stdout.splitlines() if " result " in r]
    assert len(rows) == 1 and "statistician/0" in rows[0] and "compare done" in rows[0]

    # and so does the web view's state
    page = (await WebApp(runs).page(run_id)).to_json(writable=False)
    assert [(t["id"], t["role"], t["state"]) for t in page["tasks"]] == [
        ("compare", "statistician", "done")
    ]
    results = [m for m in page["conversation"] if m["type"] == "result"]
    assert [(m["sender"], m["role"]) for m in results] == [("statistician/0", "statistician")]


@pytest.mark.docker
@pytest.mark.nats
@pytest.mark.timeout(900)
def test_a_specialist_answers_its_task_with_a_real_model(llama_server: str, tmp_path: Path) -> None:
    """The example with the statistician on SmolLM2-135M (llama.cpp), the plan scripted: a
    smoke test of the path, never of the answer's quality."""
    data = yaml.safe_load(SCENARIO.read_text())
    data["models"]["live"] = {
        "provider": "openai",
        "config": {
            "model": "smollm2",
            "base_url": llama_server,
            "api_key": "${SMOLLM_KEY}",
            "model_info": {
                "vision": False,
                "function_calling": True,
                "json_output": True,
                "family": "unknown",
                "structured_output": True,
            },
        },
        "max_tokens": 256,
        "timeout_s": 240,
    }
    data["specialists"][0]["model"] = "live"
    del data["script"]["statistician"]
    data["budgets"] = {"wall_s": 600, "calls": 10}
    path = tmp_path / "specialist.yaml"
    path.write_text(yaml.safe_dump(data))
    runs, run_id = tmp_path / "runs", "live-specialist-1"
    key = {"SMOLLM_KEY": "sk-local-test-key-0123456789", "HOME": os.environ.get("HOME", "/")}
    done = society(
        "run", str(path), "--runs-dir", str(runs), "--run-id", run_id, env=key, timeout=840
    )
    assert done.returncode in (0, 1), (done.stdout + done.stderr)[-3000:]
    envs = [r.envelope for r in read_jsonl(runs / run_id / "log.jsonl").records if r.envelope]
    calls = [
        e.payload for e in envs if isinstance(e.payload, Usage) and e.sender == "statistician/0"
    ]
    assert calls and all(c.model == "smollm2" for c in calls)
    assert any(c.answer for c in calls), calls  # the model answered
    # A tiny model may not hold the form: a failed attempt is retried, so there may be several.
    results = [e for e in envs if isinstance(e.payload, TaskResult)]
    assert results and all(r.sender == "statistician/0" for r in results), results
    for result in results:
        assert isinstance(result.payload, TaskResult) and result.payload.task_id == "compare"
        assert result.payload.status in ("done", "failed", "budget_exhausted")
        if result.payload.status == "done":
            assert "answer" in result.payload.outputs
