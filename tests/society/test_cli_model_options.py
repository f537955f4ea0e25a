"""The model options are one block: every command that runs models offers the same ones,
and a command receives them as one `ModelOptions` value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from society.cli.main import app
from society.cli.model_options import ModelOptions, model_options

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
OPTIONS = (
    "--model",
    "--base-url",
    "--api-key-env",
    "--max-tokens",
    "--timeout",
    "--structured",
    "--temperature",
)


def _options(command: str) -> dict[str, Any]:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    found = group.commands[command]
    return {name: p for p in found.params for name in p.opts}


def test_every_model_command_offers_the_same_model_options() -> None:
    commands = ("run", "eval", "train", "replay")
    helps = {
        c: {o: getattr(_options(c)[o], "help", None) for o in OPTIONS if o != "--temperature"}
        for c in commands
    }
    assert all(set(OPTIONS) <= set(_options(c)) for c in commands)
    assert all(h == helps["run"] for h in helps.values())


def test_the_temperature_default_is_the_command_s() -> None:
    assert _options("run")["--temperature"].default is None
    assert _options("eval")["--temperature"].default == 0.0


def test_a_command_receives_the_options_as_one_value() -> None:
    seen: list[ModelOptions] = []
    tiny = typer.Typer()

    @tiny.command()
    @model_options(temperature=0.5)
    def go(models: ModelOptions, name: str = "x") -> None:
        seen.append(models)
        assert name == "y"

    args = ["--name", "y", "--model", "m", "--base-url", "http://h", "--max-tokens", "64"]
    result = runner.invoke(tiny, args)
    assert result.exit_code == 0, result.output
    assert seen == [ModelOptions(model="m", base_url="http://h", max_tokens=64, temperature=0.5)]


def test_the_spec_carries_every_option() -> None:
    assert ModelOptions().spec() is None
    given = ModelOptions("m", "http://h", "KEY", 64, 9.0, "json_object", 0.3, slots=2)
    spec = given.spec()
    assert spec is not None
    assert spec.config["temperature"] == 0.3 and spec.config["base_url"] == "http://h"
    assert spec.config["api_key"] == "${KEY}"
    assert (spec.max_tokens, spec.timeout_s, spec.structured) == (64, 9.0, "json_object")
    assert spec.slots == 2
    assert "temperature" not in (ModelOptions("m").spec() or spec).config


@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_wrong_schema_mode_exits_2(command: str) -> None:
    scenario = str(ROOT / "scenarios" / "quickstart.yaml")
    result = runner.invoke(app, [command, scenario, "--model", "m", "--structured", "nope"])
    assert result.exit_code == 2
    assert "--structured must be one of auto" in result.output
