"""How fast the CLI starts: `society --help`, `society validate` and `society replay` of a
small log, each against a bare `python -c pass`, in interleaved pairs (A, B, A, B...); and
the quickstart run's process wall against the wall time the run itself reports.

    python bench/startup.py [--pairs 15] [--quickstart-runs 5] [--against CHECKOUT]
    python bench/startup.py --short   # seconds: small sizes, checks that it runs

With ``--against``, each command is also timed from another checkout of society (say,
before a restructuring: ``git worktree add /tmp/before <commit>``), in the same
interleaving (bare, this, that, ...), and the ratio this/that is printed.

Prints each command's wall time as median and spread and the pairwise ratio to a bare
Python start. Targets (issue 18): `society --help` <= 5x a bare start; the quickstart's
process wall <= 2x its in-run wall (the first to the last message of the run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common  # before the project's packages: it drops bench/ from the path

ROOT = Path(__file__).resolve().parents[1]
SOCIETY = [sys.executable, "-m", "society.cli"]


def wall(cmd: list[str], checkout: Path | None = None) -> float:
    """Seconds ``cmd`` takes; with ``checkout``, its packages come first on the path."""
    env = {**os.environ, "PYTHONPATH": str(checkout)} if checkout is not None else None
    began = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - began


def shown(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 4 else [min(xs), 0, max(xs)]
    return f"median {statistics.median(xs):.3f} (p25 {q[0]:.3f}, p75 {q[2]:.3f})"


SHORT = {"pairs": 2, "quickstart_runs": 1}
"""The sizes of ``--short`` (`common.parse`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15, help="0 to skip the commands")
    parser.add_argument("--quickstart-runs", type=int, default=5, help="0 to skip")
    parser.add_argument("--against", type=Path, help="another checkout, timed alongside")
    args = common.parse(parser, SHORT)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        sys.path.insert(0, str(ROOT))
        from tests.society.replay.logs import write

        log = write(Path(tmp) / "log.jsonl")
        commands = {
            "society --help": [*SOCIETY, "--help"],
            "society validate": [*SOCIETY, "validate", str(ROOT / "scenarios" / "quickstart.yaml")],
            "society replay": [*SOCIETY, "replay", str(log)],
        }
        bare = [sys.executable, "-c", "pass"]
        for name, cmd in commands.items() if args.pairs else ():
            base: list[float] = []
            mine: list[float] = []
            theirs: list[float] = []
            for _ in range(args.pairs):
                base.append(wall(bare))
                mine.append(wall(cmd))
                if args.against is not None:
                    theirs.append(wall(cmd, args.against))
            ratios = [m / b for m, b in zip(mine, base, strict=True)]
            print(f"{name}: {shown(mine)} s; bare python {shown(base)} s")
            print(f"  ratio {shown(ratios)}" + ("   target <= 5" if "help" in name else ""))
            if theirs:
                against = [m / t for m, t in zip(mine, theirs, strict=True)]
                print(f"  {args.against}: {shown(theirs)} s; this / that {shown(against)}")
        if args.quickstart_runs:
            quickstart(Path(tmp), args.quickstart_runs)


def quickstart(tmp: Path, runs: int) -> None:
    """`society run scenarios/quickstart.yaml`: process wall against the run's own wall."""
    process: list[float] = []
    in_run: list[float] = []
    env = {**os.environ, "TERM": "dumb"}
    for n in range(runs):
        runs_dir = tmp / f"runs{n}"
        cmd = [*SOCIETY, "run", str(ROOT / "scenarios" / "quickstart.yaml")]
        cmd += ["--runs-dir", str(runs_dir), "--memory-dir", str(tmp / f"memory{n}")]
        began = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env
        )
        process.append(time.perf_counter() - began)
        [summary] = runs_dir.glob("*/summary.json")
        in_run.append(json.loads(summary.read_text())["wall_s"])
    ratios = [p / r for p, r in zip(process, in_run, strict=True)]
    print(f"quickstart run: process wall {shown(process)} s; in-run wall {shown(in_run)} s")
    print(f"  ratio {shown(ratios)}   target <= 2")


if __name__ == "__main__":
    main()
