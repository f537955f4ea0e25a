"""The install locks agree with pyproject.toml: every dependency (and the dev extra's) is
locked at a version its range admits, every locked file has a hash, and scripts/setup
installs from the locks (scripts/lock refreshes them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def locked(name: str) -> dict[str, str]:
    """{canonical name: version} of a lock file, checking every entry has a hash."""
    text = (ROOT / "requirements" / name).read_text()
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = ENTRY.match(block)
        if m is None:
            continue
        assert "--hash=sha256:" in block, f"{name}: {m.group(1)} has no hash"
        pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def requirements(*specs: str) -> list[Requirement]:
    return [Requirement(s) for s in specs]


@pytest.mark.parametrize(
    ("lock", "specs"),
    [
        ("base.lock", PROJECT["dependencies"]),
        ("dev.lock", PROJECT["dependencies"] + PROJECT["optional-dependencies"]["dev"]),
    ],
)
def test_every_dependency_is_locked_at_a_version_pyproject_admits(
    lock: str, specs: list[str]
) -> None:
    pins = locked(lock)
    for req in requirements(*specs, "setuptools>=68"):
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is in pyproject.toml but not in {lock}: run scripts/lock"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"{lock} pins {req.name}=={pins[name]}, outside pyproject's {req.specifier}: run scripts/lock"
        )


def test_the_model_server_is_locked_as_its_input_says() -> None:
    pins = locked("llama.lock")
    for line in (ROOT / "requirements" / "llama.in").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            assert req.specifier.contains(pins[canonicalize_name(req.name)])


def test_setup_installs_exactly_the_locks() -> None:
    setup = (ROOT / "scripts" / "setup").read_text()
    assert '--require-hashes -r "$LOCK"' in setup and "requirements/dev.lock" in setup
    assert "--require-hashes -r requirements/llama.lock" in setup
    assert "--no-deps --no-build-isolation -e ." in setup


def test_the_sandbox_image_is_built_from_its_lock() -> None:
    pins = locked("sandbox.lock")
    for line in (ROOT / "requirements" / "sandbox.in").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert canonicalize_name(Requirement(line).name) in pins, f"{line}: run scripts/lock"
    build = (ROOT / "scripts" / "build-sandbox").read_text()
    assert 'LOCK="requirements/sandbox.lock"' in build and "--require-hashes" in build
    assert "scripts/build-sandbox" in (ROOT / "scripts" / "setup").read_text()
