"""A whole scripted `society run` of many tasks in layers, with the critic on: its makespan
against the critical path, the manager's and critic's share, and the peak memory.

Each task is one scripted researcher answer that takes ``--latency`` seconds; task i of a
layer depends on task i of the layer before, so the critical path is layers x latency.
The makespan is measured in the run's own log: from the first task handed out to the last
result. Rounds repeat the run (median and spread); the baseline is the critical path.

    python bench/scale.py [--tasks 1000] [--layers 20] [--latency 1.0] [--rounds 3]
    python bench/scale.py --short   # seconds: small sizes, checks that it runs
    python bench/scale.py --tasks 10000 --layers 20 --rounds 1

Targets (issue 18): 1,000 tasks in 20 layers <= 1.15x the critical path with the critic
on; 10,000 tasks succeed (peak memory reported).
"""

from __future__ import annotations

import argparse
import hashlib
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


def scenario(tasks: int, layers: int, latency: float) -> str:
    """``tasks`` researcher tasks in ``layers`` layers (`common.layered_scenario`); each
    answer takes ``latency`` seconds and is as different as real ones (the critic compares)."""
    width = max(1, tasks // layers)

    def answer(i: int) -> str:
        fact = hashlib.sha256(str(i).encode()).hexdigest()
        cited = f"sources: [{common.CORPUS}]"
        return f"delay_s: {latency}, answer: {{outputs: {{o{i}: '{fact}'}}, {cited}}}"

    return common.layered_scenario(
        "scale-bench",
        tasks,
        width,
        wall_s=7200,
        roles=[],
        researcher=f"concurrency: {width + 8}",
        answer=answer,
    )


def one_run(path: Path, runs_dir: Path) -> dict[str, float | str]:
    """Run ``society run`` on ``path``; its makespan (from the log), wall and peak RSS."""
    cmd = [sys.executable, "-m", "society.cli", "run", str(path), "--runs-dir", str(runs_dir)]
    began = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    usage = common.reap(proc)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        msg = f"society run failed ({proc.returncode}):\n{err[-3000:]}"
        raise RuntimeError(msg)
    [log] = sorted(runs_dir.glob("*/log.jsonl"), key=lambda p: p.stat().st_mtime)[-1:]
    first_task = last_result = None
    count = 0
    with log.open() as f:
        for line in f:
            env = json.loads(line).get("envelope")
            if not env:
                continue
            kind, ts = env["payload"]["type"], env["ts"] / 1e6
            if kind == "task" and first_task is None:
                first_task = ts
            elif kind == "result":
                last_result = ts
                count += 1
    assert first_task is not None
    assert last_result is not None
    return {
        "makespan": last_result - first_task,
        "wall": wall,
        "results": count,
        "peak_mib": usage.ru_maxrss / 1024,
        "cpu": usage.ru_utime + usage.ru_stime,
    }


SHORT = {"tasks": 40, "layers": 4, "latency": 0.1, "rounds": 1}
"""The sizes of ``--short`` (`common.parse`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per answer")
    parser.add_argument("--rounds", type=int, default=3)
    args = common.parse(parser, SHORT)
    bound = args.layers * args.latency
    print(
        f"scale bench: {args.tasks} tasks in {args.layers} layers, {args.latency:g} s an "
        f"answer, critic on; critical path {bound:.1f} s; {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scale.yaml"
        common.write_layered(path, scenario(args.tasks, args.layers, args.latency))
        print(f"scenario: {path.stat().st_size / 1e6:.2f} MB")
        rows = []
        for i in range(args.rounds):
            row = one_run(path, Path(tmp) / f"runs{i}")
            rows.append(row)
            print(
                f"  round {i + 1}: makespan {row['makespan']:.1f} s "
                f"({float(row['makespan']) / bound:.3f}x the critical path), "
                f"process wall {row['wall']:.1f} s, {row['results']} results, "
                f"CPU {row['cpu']:.1f} s, peak RSS {row['peak_mib']:.0f} MiB"
            )
    ratios = sorted(float(r["makespan"]) / bound for r in rows)
    peaks = [float(r["peak_mib"]) for r in rows]
    print(
        f"makespan / critical path: median {statistics.median(ratios):.3f}x, spread "
        f"{ratios[0]:.3f}-{ratios[-1]:.3f} over {len(ratios)} rounds (target <= 1.15)"
    )
    print(f"peak RSS of the run process (with its roles): {max(peaks):.0f} MiB")


if __name__ == "__main__":
    main()
