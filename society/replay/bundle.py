"""A run as one self-contained file that another machine can replay: the log, the
scenario, the summary, the artifacts, the long-term memory as it was when the run began,
and the scenario's own inputs (corpus and script files) under ``inputs/``.

Layout inside the ``.tar.gz``: ``<run_id>/{log.jsonl, scenario.json, summary.json,
artifacts/…, prompts/…, memory-at-start.sqlite3, inputs/…}``.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from society.errors import RunError
from society.prompts import PROMPTS_DIR

__all__ = ["INPUTS", "is_bundle", "make_bundle", "open_bundle"]

INPUTS = "inputs"
_RUN_FILES = ("log.jsonl", "scenario.json", "summary.json", "memory-at-start.sqlite3")


def is_bundle(path: Path) -> bool:
    """Whether ``path`` names a bundle file (by its name)."""
    return path.name.endswith((".tar.gz", ".tgz"))


def _scenario_inputs(run_dir: Path) -> list[tuple[Path, str]]:
    """(file on disk, name under inputs/) for the corpus and script the scenario used."""
    try:
        doc = json.loads((run_dir / "scenario.json").read_text())
    except (OSError, ValueError):
        return []
    base = Path(doc.get("base_dir") or ".")
    wanted = list(doc.get("roles", {}).get("researcher", {}).get("corpus", []))
    if isinstance(doc.get("script"), str):
        wanted.append(doc["script"])
    found = []
    for rel in wanted:
        path = base / rel
        if path.is_file():
            found.append((path, rel))
        elif path.is_dir():
            found += [(f, str(Path(rel) / f.relative_to(path))) for f in sorted(path.rglob("*"))]
    return [(f, name) for f, name in found if f.is_file() and not Path(name).is_absolute()]


def make_bundle(run_dir: Path, out: Path | None = None) -> Path:
    """Pack ``run_dir`` into ``out`` (default: ``<run_dir>.tar.gz``); returns the path."""
    run_dir = run_dir.resolve()
    if not (run_dir / "log.jsonl").is_file():
        msg = f"{run_dir} holds no log.jsonl: is it a finished run's folder?"
        raise RunError(msg)
    out = out or run_dir.with_name(run_dir.name + ".tar.gz")
    name = run_dir.name
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    with tarfile.open(part, "w:gz") as tar:
        for file in _RUN_FILES:
            if (run_dir / file).is_file():
                tar.add(run_dir / file, arcname=f"{name}/{file}")
        for folder in ("artifacts", PROMPTS_DIR):
            if (run_dir / folder).is_dir():
                tar.add(run_dir / folder, arcname=f"{name}/{folder}")
        for path, rel in _scenario_inputs(run_dir):
            tar.add(path, arcname=f"{name}/{INPUTS}/{rel}")
    part.replace(out)
    return out


def open_bundle(bundle: Path, into: Path) -> Path:
    """Unpack ``bundle`` into the folder ``into``; returns the run folder inside it."""
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            tops = {Path(m.name).parts[0] for m in tar.getmembers() if m.name}
            if len(tops) != 1:
                msg = f"{bundle}: not a society bundle (expected one run folder inside)"
                raise RunError(msg)
            tar.extractall(into, filter="data")
    except (OSError, tarfile.TarError) as exc:
        msg = f"{bundle}: cannot read the bundle: {exc}"
        raise RunError(msg) from exc
    run_dir = into / tops.pop()
    if not (run_dir / "log.jsonl").is_file():
        msg = f"{bundle}: the bundle holds no log.jsonl"
        raise RunError(msg)
    return run_dir
