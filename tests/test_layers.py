"""The house holds: society/ in wings whose imports point down only, and no import circle
(lazy imports inside functions count too; a package's ``__init__`` does not)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BELOW: dict[str, tuple[str, ...]] = {
    # a wing, and the wings it must never import (they sit above it)
    "society.web": ("society.cli",),
    "society.eval": ("society.cli", "society.web"),
    "society.replay": ("society.cli", "society.web", "society.eval"),
    "society.run": ("society.cli", "society.web", "society.eval", "society.replay"),
    "society.human": (
        "society.cli",
        "society.web",
        "society.eval",
        "society.replay",
        "society.run",
    ),
    "society.tools": (
        "society.cli",
        "society.web",
        "society.eval",
        "society.replay",
        "society.run",
    ),
    "society.tracing": (
        "society.cli",
        "society.web",
        "society.eval",
        "society.replay",
        "society.run",
    ),
    "society.models": (
        "society.cli",
        "society.web",
        "society.eval",
        "society.replay",
        "society.run",
    ),
    "society.view": ("society.",),  # the terminal's helpers stand on their own
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "society").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            named |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            named |= {base, *(f"{base}.{a.name}" for a in node.names)}
    return {m for m in named if m in modules and m != name and modules[m].name != "__init__.py"}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_wing_imports_one_above_it() -> None:
    graph = _graph()
    wrong = [
        f"{a} -> {b}"
        for a, targets in graph.items()
        for wing, above in BELOW.items()
        if a == wing or a.startswith(wing + ".")
        for b in targets
        if not b.startswith(wing + ".") and any(b.startswith(u) for u in above)
    ]
    assert wrong == []


def test_the_command_line_is_imported_by_nothing() -> None:
    graph = _graph()
    wrong = [
        f"{a} -> {b}"
        for a, targets in graph.items()
        if not a.startswith("society.cli")
        for b in targets
        if b.startswith("society.cli")
    ]
    assert wrong == []


def test_no_import_circle_in_society() -> None:
    sorter = TopologicalSorter(_graph())
    try:
        sorter.prepare()
    except CycleError as exc:
        raise AssertionError(f"import circle: {exc.args[1]}") from None


def test_the_top_level_holds_few_modules() -> None:
    top = [p.name for p in (ROOT / "society").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, sorted(top)
