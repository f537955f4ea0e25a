"""The rooms of roles/ hold: everything that judges an answer lives in ``roles/verifier/``
and the program protocol in ``roles/program.py``, below the coder and the manager; nothing
outside ``roles/coder/`` imports the coder, and the verifier imports neither it nor the
manager."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RULES: list[tuple[str, tuple[str, ...]]] = [
    # a room (module prefix), and what it must never import
    ("roles.", ("roles.coder",)),  # (roles.coder itself is exempt: see _broken)
    ("roles.verifier", ("roles.coder", "roles.manager", "roles.planner", "roles.researcher")),
    ("roles.program", ("roles.coder", "roles.manager", "roles.verifier")),
]


def _imports(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found |= {base, *(f"{base}.{a.name}" for a in node.names)}
    return found


def broken(root: Path) -> list[str]:
    """Every import in ``root``'s roles/ that breaks a rule, as ``module -> import``."""
    wrong = []
    for path in sorted((root / "roles").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for target in _imports(path, name):
            for room, never in RULES:
                if not (name == room or name.startswith(room)):
                    continue
                for banned in never:
                    inside = name == banned or name.startswith(banned + ".")
                    if not inside and (target == banned or target.startswith(banned + ".")):
                        wrong.append(f"{name} -> {target}")
    return sorted(set(wrong))


def test_no_import_runs_back_up_in_roles() -> None:
    assert broken(ROOT) == []


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("roles/verifier/goal_check.py", "from roles.coder.votes import Solved\n"),
        ("roles/program.py", "import roles.verifier.agreement\n"),
        ("roles/manager/final.py", "from roles.coder import role\n"),
    ],
)
def test_an_arrow_back_up_is_caught(tmp_path: Path, module: str, line: str) -> None:
    for path in (ROOT / "roles").rglob("*.py"):
        copy = tmp_path / path.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(path.read_text())
    target = tmp_path / module
    target.write_text(line + target.read_text())
    assert broken(tmp_path) != []
