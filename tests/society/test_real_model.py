"""The society against a real model server nobody here wrote: llama.cpp's OpenAI-compatible
server (llama-cpp-python) with SmolLM2-135M-Instruct, driven through the real CLI. The
model is tiny and weak: these tests check protocol and robustness, never answer quality."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bus.logfile import read_jsonl
from bus.payloads import Plan, Usage

from ..proc import alive

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
SOCIETY = Path(sys.executable).parent / "society"
EXAMPLES = ["quickstart", "code_retry", "plan_repair"]


WALL_S = 600
"""The wall budget the examples run under here: below `run_cli`'s 840 s, so that on a loaded
machine the run's own budget ends it (and says so), not the test's timeout."""


def copied(scenario: str, folder: Path, planned: bool = False) -> Path:
    """A copy of the example with its wall budget at most `WALL_S`; ``planned``: its first
    plan is asked of the model (with documents to read, a live model's first plan is
    otherwise one coding task, no model asked)."""
    data = yaml.safe_load((ROOT / "scenarios" / f"{scenario}.yaml").read_text())
    budgets = data.setdefault("budgets", {})
    budgets["wall_s"] = min(budgets.get("wall_s", WALL_S), WALL_S)
    if planned:
        data["roles"].setdefault("planner", {})["one_task_first"] = False
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{scenario}.yaml"
    path.write_text(yaml.safe_dump(data))
    if (ROOT / "scenarios" / "corpus").is_dir():
        (folder / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    return path


def run_cli(
    scenario: str, url: str, runs: Path, path: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    args = [
        str(SOCIETY),
        "run",
        str(path or ROOT / "scenarios" / f"{scenario}.yaml"),
        "--model",
        "smollm2",
        "--base-url",
        url,
        "--api-key-env",
        "SMOLLM_KEY",
        "--max-tokens",
        "384",
        "--timeout",
        "240",
        "--runs-dir",
        str(runs),
    ]
    env = {**os.environ, "SMOLLM_KEY": "sk-local-test-key-0123456789", "COLUMNS": "120"}
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=840, check=False)
    run_dirs = [d for d in runs.iterdir() if d.is_dir() and d.name.startswith(scenario)]
    assert len(run_dirs) == 1, done.stderr[-2000:]
    return done, run_dirs[0]


@pytest.mark.parametrize("scenario", EXAMPLES)
def test_an_example_goal_ends_cleanly_within_its_budgets(
    scenario: str, llama_server: str, tmp_path: Path
) -> None:
    done, run_dir = run_cli(scenario, llama_server, tmp_path, copied(scenario, tmp_path / "in"))
    output = done.stdout + done.stderr
    assert done.returncode in (0, 1), output[-3000:]
    # the society itself did not crash: a traceback of its own names host files; one of the
    # model's programs (shown as the coder's failure) names only the sandbox's main.py
    assert not re.search(r'File "/[^"]+\.py", line \d+', output), output[-3000:]
    assert "run folder:" in output  # the summary was printed
    summary = json.loads((run_dir / "summary.json").read_text())
    budgets = json.loads((run_dir / "scenario.json").read_text())["budgets"]
    assert summary["model_calls"] <= budgets["calls"]
    records = read_jsonl(run_dir / "log.jsonl").records
    envs = [r.envelope for r in records if r.envelope is not None]
    usages = [e for e in envs if isinstance(e.payload, Usage) and e.payload.kind == "model"]
    assert usages and all(u.payload.model == "smollm2" for u in usages)
    # every model call's request is in the run folder, secret-free
    prompts = run_dir / "prompts"
    for u in usages:
        assert isinstance(u.payload, Usage) and u.payload.prompt
        assert (prompts / f"{u.payload.prompt}.json").is_file()
    assert all("sk-local-test-key" not in p.read_text() for p in prompts.iterdir())
    # nothing left running: the embedded nats-server is gone
    server = json.loads((run_dir / "server.json").read_text())
    assert not alive(server["pid"])


def test_the_planners_structured_answer_is_a_plan(llama_server: str, tmp_path: Path) -> None:
    scenario = copied("quickstart", tmp_path / "scenario", planned=True)
    done, run_dir = run_cli("quickstart", llama_server, tmp_path, scenario)
    assert done.returncode in (0, 1), (done.stdout + done.stderr)[-3000:]
    envs = [r.envelope for r in read_jsonl(run_dir / "log.jsonl").records if r.envelope]
    # on a loaded machine the run may end (its wall budget, its tries) before a plan held:
    # then every planner answer it got is judged, and a failure says how the run ended
    first_plan = next((i for i, e in enumerate(envs) if isinstance(e.payload, Plan)), len(envs))
    summary = json.loads((run_dir / "summary.json").read_text())
    ended = f"the run ended {summary.get('status')!r}: {summary.get('reason')!r}"
    planner_calls = [
        e for e in envs[:first_plan] if e.role == "planner" and isinstance(e.payload, Usage)
    ]
    # constrained decoding holds each answer to the plan's schema, so every answer is a JSON
    # object unless cut off at the token limit; the grammar lets a raw newline into a string
    # (so parse as the planner does, not strictly), and what it cannot say (a number's
    # bounds, an id's length) may still be refused; how a tiny model rambles differs between
    # CPUs even at temperature 0, so a retry is allowed, a non-JSON answer is not
    assert planner_calls, f"the planner made no model call before the first plan; {ended}"
    for call in planner_calls:
        usage = call.payload
        assert isinstance(usage, Usage), ended
        if usage.answer is None:  # the call itself failed (a timeout on a loaded machine)
            continue
        if usage.finish_reason != "length":
            answer = json.loads(usage.answer, strict=False)
            assert isinstance(answer, dict), (usage.answer, ended)
            # the quickstart has documents: its first plan is held to read them first
            assert answer["tasks"][0]["role"] == "researcher", (usage.answer, ended)
    assert any(isinstance(c.payload, Usage) and c.payload.answer for c in planner_calls), ended
    first = planner_calls[0].payload
    assert isinstance(first, Usage) and first.prompt
    request = json.loads((run_dir / "prompts" / f"{first.prompt}.json").read_text())
    fmt = request["create_args"]["response_format"]
    assert fmt["type"] == "json_object" and "tasks" in fmt["schema"]["properties"]
    assert request["create_args"]["max_tokens"] == 384
    # replay shows what the planner saw and answered
    shown = subprocess.run(
        [str(SOCIETY), "replay", str(run_dir), "--prompt", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "You are the planner" in shown.stdout and "json_object" in shown.stdout
