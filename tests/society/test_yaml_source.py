"""Hard YAML inputs: deep nesting, alias bombs, duplicate keys and huge files are refused
with the file and line (exit 2, no traceback), by the real CLI; normal YAML still loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from society.yaml_source import YamlLimitError, YamlLimits, load_yaml

ROOT = Path(__file__).resolve().parents[2]
HEAD = "name: hard\ngoal:\n  text: count\n"
"""A scenario's first lines; what follows goes under ``goal:``."""


def society(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run the real ``society`` command line (as a user would) and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "society.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def refused(proc: subprocess.CompletedProcess[str], where: str, *words: str) -> None:
    """The command exited 2 with one clear error at ``where`` saying ``words``, no traceback."""
    stderr = proc.stderr.replace("\n", "")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"error: {where}: " in stderr
    for word in words:
        assert word in stderr


@pytest.mark.timeout(60)
def test_deep_nesting_exits_2_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(HEAD + "  inputs:\n    x: " + "[" * 5000 + "]" * 5000 + "\n")
    refused(society("validate", path), f"{path}:5", "nested deeper than 64 levels")


@pytest.mark.timeout(60)
def test_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ['    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"    {name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    path = tmp_path / "bomb.yaml"
    path.write_text(HEAD + "  inputs:\n" + "\n".join(lines) + "\n")
    # the first *d (on line 9, under e) takes the aliases past 10,000 nodes
    refused(society("validate", path), f"{path}:9", "aliases (*d here) expand to more than")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_duplicate_key_exits_2_naming_key_and_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(HEAD + "models:\n  default: {provider: scripted}\nname: again\n")
    args = ["--runs-dir", tmp_path / "runs"] if command == "run" else []
    proc = society(command, path, *args)
    refused(proc, f"{path}:6", "duplicate key 'name' (first at line 1)")
    assert not (tmp_path / "runs").exists()


@pytest.mark.timeout(60)
def test_oversized_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(HEAD + "  inputs:\n    blob: " + "x" * (4 << 20) + "\n")
    refused(society("validate", path), f"{path}:1", "larger than 4,194,304 bytes")


@pytest.mark.timeout(10)
def test_block_nesting_at_the_limit_loads_and_one_more_is_refused(tmp_path: Path) -> None:
    def nested(depth: int) -> Path:
        path = tmp_path / f"n{depth}.yaml"
        # depth-1 mappings, then the scalar: `depth` nodes from the root down
        path.write_text(
            "".join(f"{'  ' * i}k{i}:\n" for i in range(depth - 2)) + "  " * (depth - 2) + "k: v\n"
        )
        return path

    load_yaml(nested(8), YamlLimits(max_depth=8))
    with pytest.raises(YamlLimitError, match="deeper than 8 levels") as info:
        load_yaml(nested(9), YamlLimits(max_depth=8))
    assert info.value.line == 8


@pytest.mark.timeout(10)
def test_anchors_merges_and_repeated_keys_in_other_mappings_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(
        "base: &base {provider: scripted, temperature: 0}\n"
        "a: {<<: *base, temperature: 1}\n"
        "b: {<<: *base}\n"
        "list: [*base, *base]\n"
    )
    data = load_yaml(path).data
    assert data["a"] == {"provider": "scripted", "temperature": 1}
    assert data["b"] == data["list"][0] == {"provider": "scripted", "temperature": 0}


@pytest.mark.timeout(10)
def test_keys_equal_once_resolved_are_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("roles:\n  1: a\n  0x1: b\n")
    with pytest.raises(yaml.YAMLError, match=r"duplicate key '0x1' \(first at line 2\)"):
        load_yaml(path)


@pytest.mark.timeout(10)
def test_alias_budget_counts_what_aliases_stand_for(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("a: &a [1, 2, 3, 4]\nb: [*a, *a]\nc: *a\n")
    load_yaml(path, YamlLimits(max_alias_nodes=15))  # three aliases of 5 nodes each
    with pytest.raises(YamlLimitError, match=r"\*a here") as info:
        load_yaml(path, YamlLimits(max_alias_nodes=14))
    assert info.value.line == 3


@pytest.mark.timeout(10)
def test_alias_budget_counts_the_text_aliases_repeat(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("a: &a " + "x" * 100 + "\nb: [" + ", ".join(["*a"] * 10) + "]\n")
    load_yaml(path, YamlLimits(max_alias_chars=1000))
    with pytest.raises(YamlLimitError, match="more than 999 characters") as info:
        load_yaml(path, YamlLimits(max_alias_chars=999))
    assert info.value.line == 2


def test_without_libyaml_the_pure_python_parser_gives_the_same_result(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(HEAD + "  text: again\n")
    script = (
        "import sys; sys.modules['yaml._yaml'] = None\n"  # as if PyYAML had no libyaml
        "from pathlib import Path\n"
        "from society.yaml_source import load_yaml\n"
        f"print(load_yaml(Path({str(ROOT / 'scenarios' / 'quickstart.yaml')!r})).data['name'])\n"
        f"load_yaml(Path({str(path)!r}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert proc.stdout.strip() == load_yaml(ROOT / "scenarios" / "quickstart.yaml").data["name"]
    assert "duplicate key 'text' (first at line 3)" in proc.stderr
