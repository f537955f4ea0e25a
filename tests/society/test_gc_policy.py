"""The collector settings of a process that runs a society."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import gc
from society.run.gc_policy import YOUNGEST, pause_for_startup, settle_after_startup
before = gc.get_freeze_count()
pause_for_startup()
paused = not gc.isenabled()
settle_after_startup()
print(before, gc.get_freeze_count() > 1000, gc.get_threshold()[0] == YOUNGEST, paused, gc.isenabled())
"""


@pytest.mark.timeout(60)
def test_startup_objects_are_frozen_and_young_collections_are_rarer() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=50, check=True
    )
    assert proc.stdout.split() == ["0", "True", "True", "True", "True"]


PROBE = """
import gc, sys
from society.cli import main as cli

@cli.app.command()
def probe() -> None:
    print("collecting" if gc.isenabled() else "paused", flush=True)

sys.argv = ["society", "probe"]
cli.main()
"""


@pytest.mark.timeout(60)
def test_a_command_that_runs_no_society_collects_again_after_the_paused_startup() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=50, check=True
    )
    assert proc.stdout.split() == ["collecting"]
