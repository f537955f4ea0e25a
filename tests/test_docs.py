"""The README stays a front door, and the documentation site's generated pages cover the
code: every package on the layout page, every command in the CLI reference, every
scenario key in the scenario reference (docs/hooks.py generates them at build time)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _hooks() -> ModuleType:
    """docs/hooks.py, loaded as MkDocs loads it: from its path (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _hooks()


def test_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) < 250, f"README.md has {len(lines)} lines: move detail to docs/"
    first_block = "\n".join(lines[: lines.index("```", 3) + 1])
    assert "./scripts/quickstart" in first_block
    assert "./scripts/test" in first_block


def _source_folders(repo: Path) -> list[str]:
    """Every folder of Python source under the code roots, found here independently."""
    found = []
    for root in ("society", "roles", "bus", "sandbox"):
        for py in (repo / root).rglob("*.py"):
            if "__pycache__" not in py.parts:
                found.append(py.parent.relative_to(repo).as_posix())
    return sorted(set(found))


def test_layout_names_every_package_directory() -> None:
    page = hooks.layout_markdown(ROOT)
    folders = _source_folders(ROOT)
    assert "roles/coder" in folders
    missing = [f for f in folders if f"`{f}/`" not in page]
    assert not missing, f"the layout page leaves out {missing}"


def test_layout_reads_a_new_package_from_its_docstring(tmp_path: Path) -> None:
    wing = tmp_path / "roles" / "judge"
    wing.mkdir(parents=True)
    (wing / "__init__.py").write_text('"""Everything that judges an answer.\n\nDetail."""\n')
    (wing / "rule.py").write_text('"""One rule | on <run>, not `<run>`."""\n')
    (tmp_path / "society").mkdir()
    (tmp_path / "society" / "__init__.py").write_text("")
    page = hooks.layout_markdown(tmp_path)
    assert "### `roles/judge/`\n\nEverything that judges an answer.\n" in page
    assert "Detail" not in page
    assert "| `rule.py` | One rule \\| on &lt;run>, not `<run>`. |" in page
    assert "## `society/`\n\n(no docstring)" in page


def test_cli_reference_has_every_command_and_option() -> None:
    page = hooks.cli_markdown()
    from typer.testing import CliRunner

    from society.cli.main import app

    listed = CliRunner().invoke(app, ["--help"]).output
    commands = re.findall(r"^  ([a-z][a-z-]+)  ", listed, re.MULTILINE)
    assert {"run", "eval", "replay", "memory"} <= set(commands)
    for name in commands:
        assert f"## `society {name}`" in page
    assert "## `society memory forget`" in page
    for option in ("--base-url", "--split", "--baseline", "--rerun"):
        assert option in page


@pytest.mark.parametrize(
    ("model", "field"),
    [("Scenario", "budgets"), ("GoalSpec", "deliverable"), ("CoderSettings", "candidates")],
)
def test_scenario_reference_has_every_key(model: str, field: str) -> None:
    from society.scenario import Scenario

    page = hooks.scenario_markdown()
    for name in Scenario.model_fields:
        assert f"| `{name}` |" in page
    section = page.split(f"\n## {model}\n", 1)[1].split("\n## ", 1)[0]
    assert f"| `{field}` |" in section
