"""The cyclic collector's settings for a process that runs a society (`society run`,
`society resume`, `society worker`).

A run keeps thousands of tasks, futures and messages alive at once, and every burst of
results allocates many more. With CPython's default thresholds the collector rescans the
same long-lived objects again and again: about 0.15 s of a 1,000-task run's CPU, spent in
the bursts where it delays the most work. The process that owns a run freezes what startup
made (modules, classes, schemas: never garbage) and collects the youngest generation less
often. The command line does not collect at all while it imports (about 11 % of a run's
600 ms of imports, spent rescanning modules that live as long as the process).
"""

from __future__ import annotations

import gc

__all__ = ["YOUNGEST", "pause_for_startup", "resume_collection", "settle_after_startup"]

YOUNGEST = 10_000
"""Allocations (net) between collections of the youngest generation; CPython's default
is 700."""


def pause_for_startup() -> None:
    """No collections until `settle_after_startup` or `resume_collection`: what a process
    imports at its start lives as long as it does."""
    gc.disable()


def resume_collection() -> None:
    """Collect again, with CPython's settings (a command that runs no society)."""
    gc.enable()


def settle_after_startup() -> None:
    """Freeze every object alive now and make collections rarer, for the rest of the process."""
    gc.freeze()
    gc.set_threshold(YOUNGEST, 10, 10)
    gc.enable()
