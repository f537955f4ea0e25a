"""Scenario loading: every problem names the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from society.errors import ScenarioError
from society.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"


def broken(tmp_path: Path, old: str, new: str) -> Path:
    text = QUICKSTART.read_text()
    assert old in text
    path = tmp_path / "broken.yaml"
    path.write_text(text.replace(old, new, 1))
    # keep relative paths (corpus) resolvable
    (tmp_path / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize("name", ["quickstart", "code_retry", "plan_repair", "human", "tools"])
def test_example_scenarios_load(name: str) -> None:
    scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    assert scenario.name == name
    answers = scenario.scripted_answers()
    assert answers and all(answers.values())
    # code_retry's first plan is the one coding task a live run starts with: no planner call
    assert ("planner" in answers) == (name != "code_retry")


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ("    max_attempts: 3", "    max_atempts: 3", "roles.coder.max_atempts", "unknown key"),
        ("  timeout_s: 20", "  timeout_s: soon", "sandbox.timeout_s", ""),
    ],
    ids=["typo in a key", "wrong type"],
)
def test_a_mistake_names_line_and_field(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    path = broken(tmp_path, old, new)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    (issue,) = info.value.issues
    assert issue.field == field
    assert issue.line == line_of(path, new.strip())
    assert str(issue).startswith(f"{path}:{issue.line}: {field}: {message}")


def test_unknown_model_reference(tmp_path: Path) -> None:
    path = broken(tmp_path, "    corpus: [corpus]", "    corpus: [corpus]\n    model: gpt9")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert info.value.issues[0].field == "roles.researcher.model"
    assert "no model named 'gpt9'" in info.value.issues[0].message
    assert info.value.issues[0].line == line_of(path, "model: gpt9")


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\ngoal:\n  text: [unclosed\nroles: {}\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert "invalid YAML" in str(info.value)
    assert info.value.issues[0].line is not None


def test_missing_file_and_not_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="file not found"):
        load_scenario(tmp_path / "nope.yaml")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(ScenarioError, match="YAML mapping"):
        load_scenario(tmp_path / "list.yaml")


def test_missing_required_goal(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("name: x\nmodels:\n  default: {provider: scripted}\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path / "s.yaml")
    assert info.value.issues[0].field == "goal"
    assert "Field required" in info.value.issues[0].message
