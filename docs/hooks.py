"""MkDocs hooks: the reference pages, generated from the code at every build.

The CLI reference walks the typer app, the scenario page renders the scenario model's
JSON Schema, and the layout page reads every package's docstrings: written by hand, each
went stale as the code moved (the README's Layout section did), generated they cannot.
The generators are plain functions of the source tree, so tests/test_docs.py checks them
without building the site.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typer._click import Command, Context  # typer builds its commands on its own click
from typer.core import TyperGroup

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

__all__ = [
    "CODE_ROOTS",
    "cli_markdown",
    "layout_markdown",
    "on_files",
    "package_dirs",
    "scenario_markdown",
]

REPO = Path(__file__).resolve().parent.parent
"""The repository: the docs folder's parent."""
CODE_ROOTS = ("society", "roles", "bus", "sandbox")
"""The top-level packages, in dependency order (each imports only those after it)."""
SCREENSHOT = ("society/web/screenshot.png", "assets/web-screenshot.png")
"""The web view's screenshot lives beside the page it shows; the site gets a copy."""


# --- the layout ------------------------------------------------------------------------


def package_dirs(repo: Path = REPO) -> list[Path]:
    """Every folder under the code roots that holds Python source, parents first."""
    found: list[Path] = []
    for root in CODE_ROOTS:
        for folder in sorted([repo / root, *(repo / root).rglob("*")]):
            if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py")):
                found.append(folder)
    return found


def _first_paragraph(source: Path) -> str:
    """The first paragraph of a module's docstring, on one line ("" when it has none)."""
    try:
        doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
    except (SyntaxError, UnicodeDecodeError):
        return ""
    if not doc:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def _prose(text: str) -> str:
    """A docstring as Markdown: ``<run>`` outside code spans is text, not an HTML tag."""
    parts = text.split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return _prose(text).replace("|", "\\|").replace("\n", " ")


def layout_markdown(repo: Path = REPO) -> str:
    """The layout page: each package with its docstring, and a table of its modules."""
    lines = [
        "# Layout",
        "",
        "Generated from the code at every build (`docs/hooks.py`): each package of",
        "`society/`, `roles/`, `bus/` and `sandbox/` with the first paragraph of its",
        "`__init__.py` docstring, and each of its modules with the first paragraph of its own.",
        "Dependencies point one way: `society` → `roles` → `bus`, `sandbox`",
        "(see [Development](../development.md#dependencies)).",
        "",
    ]
    for folder in package_dirs(repo):
        rel = folder.relative_to(repo).as_posix()
        level = "#" * min(2 + rel.count("/"), 4)
        init = folder / "__init__.py"
        about = _first_paragraph(init) if init.exists() else "(a folder, not a package)"
        lines += [f"{level} `{rel}/`", "", _prose(about) or "(no docstring)", ""]
        modules = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
        if modules:
            lines += ["| module | what it holds |", "|---|---|"]
            lines += [f"| `{p.name}` | {_cell(_first_paragraph(p))} |" for p in modules]
            lines.append("")
    return "\n".join(lines)


# --- the command line ------------------------------------------------------------------


def _commands(cmd: Command, ctx: Context) -> list[tuple[Command, Context]]:
    """``cmd`` and, for a group, every command under it, depth first in the app's order."""
    found = [(cmd, ctx)]
    if isinstance(cmd, TyperGroup):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            sub_ctx = Context(sub, info_name=name, parent=ctx, max_content_width=88)
            found += _commands(sub, sub_ctx)
    return found


def cli_markdown() -> str:
    """The CLI reference: every command of `society`, with its help as `--help` prints it."""
    import typer.main

    from society.cli.main import app

    root = typer.main.get_command(app)
    root_ctx = Context(root, info_name="society", max_content_width=88)
    lines = [
        "# Command line",
        "",
        "Generated at every build from the typer app (`society/cli/`): each command's",
        "`--help`, as the command prints it.",
        "",
    ]
    for cmd, ctx in _commands(root, root_ctx):
        lines += [f"## `{ctx.command_path}`", "", "```text", cmd.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(lines)


# --- the scenario schema ---------------------------------------------------------------


def _type_of(prop: dict[str, Any]) -> str:
    """A short, readable type for one JSON Schema property."""
    if "$ref" in prop:
        name = str(prop["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in prop:
            return " or ".join(_type_of(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type_of(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map of {_type_of(prop['additionalProperties'])}"
    return str(kind)


def _default(prop: dict[str, Any]) -> str:
    """A property's default, short: a whole model's defaults are its own table's."""
    text = json.dumps(prop.get("default"))
    if len(text) <= 60:
        return f"`{text}`"
    if "$ref" in prop:
        return "its fields' defaults"
    value = prop.get("default")
    if isinstance(value, dict):
        return "`{" + ", ".join(f"{json.dumps(k)}: …" for k in value) + "}`"
    return f"`{text[:57]}…`"


def _model_table(name: str, schema: dict[str, Any]) -> list[str]:
    """One model of the schema: its docstring and a table of its fields."""
    required = set(schema.get("required", []))
    lines = [f"## {name}", ""]
    if schema.get("description"):
        lines += [_prose(" ".join(str(schema["description"]).split())), ""]
    props: dict[str, dict[str, Any]] = schema.get("properties", {})
    if not props:
        return [*lines, f"Type: {_type_of(schema)}.", ""]
    lines += ["| field | type | default | description |", "|---|---|---|---|"]
    for field, prop in props.items():
        default = "required" if field in required else _default(prop)
        about = " ".join(str(prop.get("description", "")).split())
        lines.append(f"| `{field}` | {_type_of(prop)} | {_cell(default)} | {_cell(about)} |")
    return [*lines, ""]


def scenario_markdown() -> str:
    """The scenario reference: every model of the scenario file, from its JSON Schema."""
    from society.scenario import Scenario
    from society.schema_docs import with_descriptions

    doc = with_descriptions(Scenario.model_json_schema(), Scenario)
    lines = [
        "# Scenario file",
        "",
        "Generated at every build from the scenario model (`society/scenario.py`) and its",
        "fields' docstrings: the same JSON Schema `society schema scenario` prints.",
        "`society validate FILE` checks a file against it (exit 2 with `file:line: field`",
        "for every problem).",
        "",
    ]
    lines += _model_table(str(doc.get("title", "Scenario")), doc)
    for name, schema in sorted(doc.get("$defs", {}).items()):
        lines += _model_table(name, schema)
    return "\n".join(lines)


# --- the hook --------------------------------------------------------------------------


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated reference pages and the screenshot to the site's files."""
    from mkdocs.structure.files import File

    generated = {
        "reference/cli.md": cli_markdown(),
        "reference/scenario.md": scenario_markdown(),
        "reference/layout.md": layout_markdown(),
    }
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    source, uri = SCREENSHOT
    files.append(File.generated(config, uri, abs_src_path=str(REPO / source)))
    return files
