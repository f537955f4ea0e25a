"""No secrets in logs or in the message log: API keys are redacted."""

from __future__ import annotations

import io
import json
import logging
import sys
from pathlib import Path

import pytest
import structlog

from society.logs import configure_logging
from society.redact import REDACTED, redact, redact_text

from .conftest import RunYaml

SECRET = "sk-live-0123456789abcdefSECRET"


def test_secret_keys_and_key_like_values_are_redacted() -> None:
    data = {
        "api_key": SECRET,
        "nested": [{"Authorization": "Bearer abcdefghijklmnop"}, {"password": "hunter22"}],
        "note": f"the key is {SECRET} ok",
        "env": "${OPENAI_API_KEY}",
        "api_key_env": "${OPENAI_API_KEY}",
        "token": "",
    }
    clean = redact(data)
    assert SECRET not in json.dumps(clean)
    assert clean["api_key"] == REDACTED
    assert clean["nested"][0]["Authorization"] == REDACTED
    assert clean["nested"][1]["password"] == REDACTED
    assert clean["note"] == f"the key is {REDACTED} ok"
    assert clean["api_key_env"] == "${OPENAI_API_KEY}"  # a reference is not a secret
    assert clean["token"] == ""
    assert redact_text("no secrets here") == "no secrets here"


def test_structured_logs_redact_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    configure_logging("json", "info")
    try:
        structlog.get_logger("t").info("calling", api_key=SECRET, detail=f"key={SECRET}")
    finally:
        structlog.configure(**saved)
        root.handlers[:], root.level = handlers, level
    line = json.loads(stream.getvalue().strip().splitlines()[-1])
    assert line["api_key"] == REDACTED and SECRET not in stream.getvalue()


@pytest.mark.nats
@pytest.mark.docker
@pytest.mark.timeout(120)
async def test_a_key_in_the_scenario_never_reaches_the_run_folder(
    run_yaml: RunYaml, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = await run_yaml(
        f"""
name: secret
goal: {{text: Say hello.}}
models:
  default: {{provider: scripted}}
  paid: {{provider: openai, config: {{model: gpt-4o, api_key: {SECRET}}}}}
roles: {{planner: {{one_task_first: false, offer_researcher: true}}}}  # a research task
script:
  planner:
    - answer: {{success_criteria: [hello said], tasks: [{{id: hi, role: researcher, description: Say hello., outputs: [answer]}}]}}
  researcher:
    - answer: {{outputs: {{answer: hello}}}}
"""
    )
    # the run ends (unverified, exit 1: its answer cites nothing, which is not the point)
    assert outcome.final is not None and outcome.final.status == "unverified", outcome.final
    assert outcome.exit_code == 1
    assert _files_holding(outcome.run_dir, SECRET) == []
    goal = json.loads((outcome.run_dir / "scenario.json").read_text())
    assert goal["models"]["paid"]["config"]["api_key"] == REDACTED
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err


def _files_holding(folder: Path, text: str) -> list[Path]:
    return [
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl") and text in p.read_text(errors="replace")
    ]
