"""``society eval --set``: a role setting every case's society runs with, checked as the
scenario file would be, and refused with the key when it names nothing or is the wrong type."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from society.cli.main import app
from society.errors import RunError
from society.eval.overrides import parse_sets, with_sets
from society.scenario import load_scenario

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[3]


def test_a_setting_is_read_as_yaml_and_set_on_the_role() -> None:
    sets = parse_sets(["roles.planner.read_first=true", "roles.researcher.max_hits=3"])
    assert sets == {"roles.planner.read_first": True, "roles.researcher.max_hits": 3}
    scenario = load_scenario(ROOT / "scenarios" / "quickstart.yaml")
    changed = with_sets(scenario, sets)
    assert changed.roles.planner.read_first is True and changed.roles.researcher.max_hits == 3
    assert scenario.roles.planner.read_first is False  # the scenario itself is left alone
    assert changed.roles.researcher.corpus == scenario.roles.researcher.corpus


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("planner.read_first=false", "roles.<role>.<setting>=<value>"),
        ("roles.planner.read_first", "roles.<role>.<setting>=<value>"),
        ("roles.nobody.x=1", "no role 'nobody'"),
        ("roles.planner.read_last=true", "no setting 'read_last'"),
        ("roles.researcher.max_hits=many", "roles.researcher.max_hits='many'"),
    ],
)
def test_a_setting_that_names_nothing_or_is_wrong_is_refused_with_its_key(
    item: str, said: str
) -> None:
    scenario = load_scenario(ROOT / "scenarios" / "quickstart.yaml")
    with pytest.raises(RunError, match=None) as caught:
        with_sets(scenario, parse_sets([item]))
    assert said in str(caught.value)


def test_the_cli_refuses_a_wrong_setting_before_any_case_runs(tmp_path: Path) -> None:
    done = CliRunner().invoke(
        app,
        ["eval", "--tatqa", "dev", "--limit", "4", "--set", "roles.planner.read_last=true",
         "--runs-dir", str(tmp_path)],
    )  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "no setting 'read_last'" in done.output
    assert not (tmp_path / "runs").exists()
