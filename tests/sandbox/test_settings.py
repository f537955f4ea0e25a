"""Settings refuse tmpfs mounts that could hold more than the container's memory."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sandbox import SandboxSettings

pytestmark = pytest.mark.timeout(30)

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_the_defaults_fit_in_the_memory_limit() -> None:
    settings = SandboxSettings()
    assert 3 * settings.workdir_mb + 30 + 32 <= settings.memory_mb


@pytest.mark.parametrize(
    ("change", "need"),
    [
        ({"memory_mb": 128}, 254),  # the red team's: 3 × 64 MB of tmpfs in 128 MB
        ({"workdir_mb": 100}, 362),
        ({"tmpfs_inodes": 100_000}, 517),  # inodes are kernel memory of the container too
    ],
)
def test_tmpfs_beyond_the_memory_limit_is_refused_with_the_numbers(
    change: dict[str, int], need: int
) -> None:
    with pytest.raises(ValueError, match="is too small for the tmpfs mounts") as refused:
        SandboxSettings(**change)
    message = str(refused.value)
    assert f"{need} MB in all. Raise memory_mb to {need}, or lower workdir_mb" in message
    assert "/work, /tmp, /dev/shm" in message
    SandboxSettings(**{**change, "memory_mb": need})  # exactly enough is fine


def test_the_scenarios_sandbox_settings_still_validate() -> None:
    files = sorted(SCENARIOS.rglob("*.yaml"))
    assert files
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        SandboxSettings.model_validate(data.get("sandbox") or {})
