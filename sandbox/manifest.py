"""What a sandbox image holds: its Python version and the libraries a program may import.

``scripts/build-sandbox`` writes the manifest into the image as the label ``MANIFEST_LABEL``
(made by ``python -m sandbox.manifest SITE --python X.Y.Z`` from the very site folder the
image gets, and checked inside the image while it is built). A run reads it at its start
(`sandbox.images.with_manifest`), the coder's prompt names what may be imported (`Manifest.described`),
and a program that imports a module the image lacks is told so, with what there is instead
(`missing_module_hint`).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "LOCK_LABEL",
    "MANIFEST_LABEL",
    "Manifest",
    "make_manifest",
    "missing_module",
    "missing_module_hint",
    "read_manifest",
]

MANIFEST_LABEL = "org.society.sandbox.manifest"
"""The image label holding the manifest as JSON."""
LOCK_LABEL = "org.society.sandbox.lock"
"""The image label holding the sha256 of the lock it was built from (setup rebuilds on a change)."""

_MISSING = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([^']+)'")


class Manifest(BaseModel):
    """An image's Python and libraries (beyond the standard library)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    python: str
    """The image's Python version (``3.11.2``)."""
    libraries: dict[str, str] = {}
    """Each installed distribution and its version (``{"numpy": "2.4.6"}``)."""
    modules: dict[str, str] = {}
    """Each importable top-level module and the distribution that provides it
    (``{"dateutil": "python-dateutil"}``)."""

    def importable(self) -> list[str]:
        """The modules a program would import, one per library (the one named like it, else
        its first), sorted: ``["dateutil", "numpy", …]``."""
        chosen: dict[str, str] = {}
        for module, dist in sorted(self.modules.items()):
            if module.startswith("_"):
                continue
            if dist not in chosen or _normal(module) == _normal(dist):
                chosen[dist] = module
        return sorted(chosen.values())

    def described(self) -> str:
        """One line for a prompt: ``Python 3.11.2 with … numpy 2.4.6, pandas 3.1.1, …``."""
        names = [
            f"{m} {self.libraries.get(self.modules[m], '')}".strip() for m in self.importable()
        ]
        if not names:
            return f"Python {self.python} with the standard library only"
        return f"Python {self.python} with the standard library and {', '.join(names)}"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def make_manifest(site: Path, python: str) -> Manifest:
    """The manifest of the distributions installed in ``site`` (a ``pip --target`` folder)."""
    libraries: dict[str, str] = {}
    modules: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=[str(site)]):
        name = dist.metadata["Name"]
        libraries[name] = dist.version
        for module in _top_level(dist):
            modules.setdefault(module, name)
    return Manifest(
        python=python,
        libraries=dict(sorted(libraries.items())),
        modules=dict(sorted(modules.items())),
    )


def _top_level(dist: importlib.metadata.Distribution) -> set[str]:
    """The top-level modules a distribution installs (``top_level.txt``, else its files)."""
    listed = dist.read_text("top_level.txt")
    if listed:
        return {line.strip() for line in listed.splitlines() if line.strip()}
    found = set()
    for file in dist.files or []:
        first = file.parts[0]
        if first.endswith((".dist-info", ".data", ".libs")) or first in {"..", "bin"}:
            continue
        if len(file.parts) > 1 or first.endswith(".py"):
            found.add(first.removesuffix(".py"))
    return found


def read_manifest(image: str, docker_host: str | None = None) -> Manifest | None:
    """The manifest ``image`` carries (None: no such image, no label, or no Docker). Blocking."""
    import docker.errors
    import requests.exceptions

    from sandbox.daemon import connect
    from sandbox.errors import SandboxError

    try:
        client = connect(docker_host)
    except SandboxError:
        return None
    try:
        labels = client.images.get(image).labels or {}
    except (docker.errors.DockerException, requests.exceptions.RequestException):
        return None
    finally:
        client.close()
    raw = labels.get(MANIFEST_LABEL)
    if not raw:
        return None
    try:
        return Manifest.model_validate_json(raw)
    except ValidationError:
        return None


def missing_module(stderr: str) -> str | None:
    """The module a program's traceback says it could not import (None: none)."""
    found = _MISSING.findall(stderr)
    return found[-1] if found else None


def missing_module_hint(stderr: str, manifest: Manifest | None) -> str:
    """A sentence for the model when a program imported what the image lacks ("" if not)."""
    module = missing_module(stderr)
    if module is None:
        return ""
    top = module.split(".")[0]
    if manifest is None:
        return (
            f"\nThe sandbox has no module {module!r}: it cannot install packages, so use "
            "the standard library."
        )
    if top in manifest.modules:
        return ""  # the library is there; the import failed for another reason
    there = ", ".join(manifest.importable()) or "nothing beyond the standard library"
    return (
        f"\nThe sandbox has no module {module!r} and cannot install one. Available: the "
        f"standard library of Python {manifest.python} and {there}."
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m sandbox.manifest SITE --python X.Y.Z``: print the manifest as JSON."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.manifest", description=__doc__)
    parser.add_argument("site", type=Path, help="the folder the libraries were installed into")
    parser.add_argument("--python", required=True, help="the image's Python version")
    args = parser.parse_args(argv)
    manifest = make_manifest(args.site, args.python)
    sys.stdout.write(json.dumps(manifest.model_dump(), separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
