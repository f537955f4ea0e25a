"""The house holds: the packages stand society -> roles -> bus, sandbox; inside society the
wings import down only; in roles, nothing outside the coder imports it and the verifier
sits below it; and there is no import circle (lazy imports inside functions count
too; a package's ``__init__`` does not). The rules are a table the checker reads, so that a
new rule is one line, and the checker is a function over a graph, so a test shows it fails
when an arrow runs back up."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("society", "roles", "bus", "sandbox")

_UPPER = ("society.cli", "society.web", "society.eval", "society.replay", "society.run")

RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # a package or wing, and what it must never import (what sits above it or beside it)
    ("bus", ("society", "roles", "sandbox")),
    ("sandbox", ("society", "roles", "bus")),
    ("roles", ("society",)),
    ("society.web", ("society.cli",)),
    ("society.learning", ("society.cli", "society.web")),
    ("society.eval", ("society.cli", "society.web", "society.learning")),
    ("society.replay", ("society.cli", "society.web", "society.eval", "society.learning")),
    ("society.run", (*_UPPER[:4], "society.learning")),
    ("society.human", (*_UPPER, "society.learning")),
    ("society.tools", (*_UPPER, "society.learning")),
    ("society.tracing", (*_UPPER, "society.learning")),
    ("society.models", (*_UPPER, "society.learning")),
    ("society.view", ("society",)),  # the terminal's helpers stand on their own
    # verification is one room below the coder and the manager (roles/verifier), the program
    # protocol below both (roles/program.py); nothing outside roles/coder imports the coder
    ("roles.verifier", ("roles.coder", "roles.manager", "roles.planner", "roles.researcher")),
    ("roles.program", ("roles.coder", "roles.verifier", "roles.manager")),
    *(
        (f"roles.{p.name.removesuffix('.py')}", ("roles.coder",))
        for p in sorted((ROOT / "roles").iterdir())
        if p.name not in ("coder", "__init__.py", "__pycache__")
        and (p.suffix == ".py" or (p / "__init__.py").exists())
    ),
)

Graph = dict[str, set[str]]


def within(name: str, wing: str) -> bool:
    """Whether module ``name`` is ``wing`` or lies inside it."""
    return name == wing or name.startswith(wing + ".")


def modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
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
    return {m for m in named if m in known and m != name and known[m].name != "__init__.py"}


def graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> Graph:
    """Who imports whom among the modules of ``packages`` under ``root``."""
    known = modules(root, packages)
    return {name: _imports(name, path, known) for name, path in known.items()}


def arrows_up(imports: Graph, rules: tuple[tuple[str, tuple[str, ...]], ...] = RULES) -> list[str]:
    """Every import that breaks a rule, as ``a -> b``; a wing may import itself."""
    return sorted(
        {
            f"{a} -> {b}"
            for a, targets in imports.items()
            for wing, above in rules
            if within(a, wing)
            for b in targets
            if not within(b, wing) and any(within(b, u) for u in above)
        }
    )


def circle(imports: Graph) -> tuple[str, ...] | None:
    """One import circle in ``imports``, or None."""
    try:
        TopologicalSorter(imports).prepare()
    except CycleError as exc:
        return tuple(exc.args[1])
    return None


def test_no_package_or_wing_imports_one_above_it() -> None:
    assert arrows_up(graph()) == []


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("roles.planner", "society.scenario"),
        ("bus.envelope", "sandbox.result"),
        ("sandbox.pool", "roles.base"),
        ("society.eval.runner", "society.learning.train"),
        ("society.learning.train", "society.cli.main"),
        ("roles.verifier.goal_check", "roles.coder.votes"),
        ("roles.program", "roles.verifier.agreement"),
        ("roles.manager.final", "roles.coder.role"),
    ],
)
def test_an_arrow_back_up_is_reported(source: str, target: str) -> None:
    imports = graph()
    assert source in imports and target in imports, "the example modules moved"
    imports[source] = imports[source] | {target}
    assert arrows_up(imports) == [f"{source} -> {target}"]


def test_the_checker_reads_a_tree_of_files(tmp_path: Path) -> None:
    for name, text in {
        "roles/__init__.py": "",
        "roles/x.py": "def f() -> None:\n    from society import y\n",
        "society/__init__.py": "",
        "society/y.py": "from roles.x import f\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    imports = graph(tmp_path, ("roles", "society"))
    assert arrows_up(imports) == ["roles.x -> society.y"]
    assert circle(imports) is not None


def test_the_command_line_is_imported_by_nothing() -> None:
    wrong = [
        f"{a} -> {b}"
        for a, targets in graph().items()
        if not within(a, "society.cli")
        for b in targets
        if within(b, "society.cli")
    ]
    assert wrong == []


def test_no_import_circle() -> None:
    assert circle(graph()) is None


def test_the_top_level_holds_few_modules() -> None:
    top = [p.name for p in (ROOT / "society").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, sorted(top)


def test_every_package_and_wing_has_a_rule() -> None:
    wings = {
        f"society.{p.name}" for p in (ROOT / "society").iterdir() if (p / "__init__.py").exists()
    }
    ruled = {wing for wing, _ in RULES}
    assert sorted(wings - ruled - {"society.cli"}) == []  # the command line sits on top
    assert {p for p in PACKAGES if p != "society"} <= ruled
