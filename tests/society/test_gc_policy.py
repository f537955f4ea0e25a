"""The collector settings of a process that runs a society."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import gc
from society.gc_policy import YOUNGEST, settle_after_startup
before = gc.get_freeze_count()
settle_after_startup()
print(before, gc.get_freeze_count() > 1000, gc.get_threshold()[0] == YOUNGEST)
"""


@pytest.mark.timeout(60)
def test_startup_objects_are_frozen_and_young_collections_are_rarer() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=50, check=True
    )
    assert proc.stdout.split() == ["0", "True", "True"]
