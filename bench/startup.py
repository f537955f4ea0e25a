"""How fast the CLI starts: `society --help`, `society validate` and `society replay` of a
small log, each against a bare `python -c pass`, in interleaved pairs (A, B, A, B...).

    python bench/startup.py [--pairs 15]

Prints each command's wall time as median and spread and the pairwise ratio to a bare
Python start. Target (issue 18): `society --help` <= 5x a bare start.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOCIETY = [sys.executable, "-m", "society.cli"]


def wall(cmd: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - began


def shown(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 4 else [min(xs), 0, max(xs)]
    return f"median {statistics.median(xs):.3f} (p25 {q[0]:.3f}, p75 {q[2]:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
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
        for name, cmd in commands.items():
            base: list[float] = []
            mine: list[float] = []
            for _ in range(args.pairs):
                base.append(wall(bare))
                mine.append(wall(cmd))
            ratios = [m / b for m, b in zip(mine, base, strict=True)]
            print(f"{name}: {shown(mine)} s; bare python {shown(base)} s")
            print(f"  ratio {shown(ratios)}" + ("   target <= 5" if "help" in name else ""))


if __name__ == "__main__":
    main()
