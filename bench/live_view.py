"""The live view's cost: CPU of a scripted 1,000-task `society run` with the live view on a
pseudo-terminal, against the same run with its output going to a file (one line per
event, no live view), in interleaved pairs (A, B, A, B...) in one run.

    python bench/live_view.py [--tasks 1000] [--pairs 3]
    python bench/live_view.py --short   # seconds: small sizes, checks that it runs

Prints each arm's CPU seconds (user + system of the `society run` process and the
nats-server it starts) as median and spread, and the pairwise ratio. Target (issue 17):
the live view costs at most 1.1x.
"""

from __future__ import annotations

import argparse
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import common  # before the project's packages: it drops bench/ from the path

ROOT = Path(__file__).resolve().parents[1]


def scenario(tasks: int, width: int) -> str:
    """``tasks`` researcher tasks in layers of ``width`` (`common.layered_scenario`)."""
    return common.layered_scenario(
        "live-view-bench",
        tasks,
        width,
        wall_s=1800,
        roles=[f"critic: {{every_results: {tasks}, every_s: 600}}"],
        researcher="concurrency: 64",
        answer=lambda i: f"answer: {{outputs: {{o{i}: {i}}}, sources: [{common.CORPUS}]}}",
    )


def _drain(fd: int) -> None:
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def one_run(path: Path, runs: Path, on_terminal: bool) -> float:
    """CPU seconds of one `society run` (and its children), with or without a terminal."""
    cmd = [sys.executable, "-m", "society.cli", "run", str(path), "--runs-dir", str(runs)]
    env = {**os.environ, "COLUMNS": "160", "LINES": "50", "TERM": "xterm-256color"}
    if on_terminal:
        master, slave = pty.openpty()
        reader = threading.Thread(target=_drain, args=(master,), daemon=True)
        reader.start()
        proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env)
        os.close(slave)
    else:
        sink = (runs / "out.txt").open("wb")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, env=env)
    usage = common.reap(proc)
    if on_terminal:
        os.close(master)
    else:
        sink.close()
    if proc.returncode != 0:
        raise SystemExit(f"the run failed with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


SHORT = {"tasks": 40, "width": 10, "pairs": 1}
"""The sizes of ``--short`` (`common.parse`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--width", type=int, default=100, help="tasks per layer")
    parser.add_argument("--pairs", type=int, default=3)
    args = common.parse(parser, SHORT)
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        path = Path(tmp) / "scenario.yaml"
        common.write_layered(path, scenario(args.tasks, args.width))
        live: list[float] = []
        plain: list[float] = []
        for n in range(args.pairs):
            for on_terminal, into in ((True, live), (False, plain)):
                began = time.monotonic()
                runs = Path(tmp) / f"runs-{n}-{int(on_terminal)}"
                runs.mkdir()
                into.append(one_run(path, runs, on_terminal))
                print(
                    f"pair {n + 1} {'live view ' if on_terminal else 'no terminal'}: "
                    f"{into[-1]:.2f} s CPU ({time.monotonic() - began:.1f} s wall)",
                    flush=True,
                )
    ratios = [a / b for a, b in zip(live, plain, strict=True)]

    def shown(xs: list[float]) -> str:
        return f"median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f})"

    print(f"{args.tasks} tasks, {args.pairs} interleaved pairs")
    print(f"  live view on a pty: {shown(live)} s CPU")
    print(f"  no terminal:        {shown(plain)} s CPU")
    print(f"  ratio live/plain:   {shown(ratios)}   target <= 1.1")


if __name__ == "__main__":
    main()
