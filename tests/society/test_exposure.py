"""What a scenario would start, read and contact on this machine, listed by one function
for `society validate --explain` and for forks of someone else's log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from society.exposure import exposure_of
from society.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def test_a_scripted_scenario_does_nothing_outside_the_sandbox() -> None:
    ex = exposure_of(load_scenario(ROOT / "scenarios" / "quickstart.yaml"))
    assert ex.lines() == [] and not ex.needs_trust


def test_commands_variables_hosts_and_client_classes_are_each_listed(tmp_path: Path) -> None:
    path = tmp_path / "sent.yaml"
    path.write_text(
        "name: sent\ngoal: {text: hi}\n"
        "models:\n"
        "  default: {provider: openai, config: {model: m, api_key: '${OPENAI_API_KEY}'}}\n"
        "  local: {provider: openai, config: {model: m, base_url: 'http://127.0.0.1:9/v1'}}\n"
        "  odd: {provider: some.module.Client, config: {model: m}}\n"
        "tools:\n  fetch: {command: mcp-server-fetch, args: [--x]}\n"
        "  far: {url: 'https://tools.example/mcp', headers: {Authorization: 'Bearer ${TOOL_KEY}'}}\n"
    )
    ex = exposure_of(load_scenario(path))
    assert ex.commands == ["mcp-server-fetch --x (tools.fetch.command)"]
    assert ex.variables == [
        "OPENAI_API_KEY (in models.default.config.api_key)",
        "TOOL_KEY (in tools.far.headers.Authorization)",
    ]
    assert "https://api.openai.com/v1 (models.default)" in ex.endpoints
    assert "http://127.0.0.1:9/v1 (models.local)" in ex.endpoints
    assert ex.remote == [
        "https://api.openai.com/v1",
        "the service of some.module.Client",
        "https://tools.example/mcp",
    ]
    assert ex.providers == ["some.module.Client (models.odd.provider)"]
    assert ex.needs_trust
    assert exposure_of(load_scenario(path), models=False).variables == [
        "TOOL_KEY (in tools.far.headers.Authorization)"
    ]


def test_validate_explain_prints_the_list() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "society.cli", "validate", str(ROOT / "scenarios" / "tools.yaml"), "--explain"],
        capture_output=True, text=True, timeout=60, check=False,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "start the command: mcp-server-fetch (tools.fetch.command)" in done.stdout
    assert "read the environment variable FACTS_URL" in done.stdout
