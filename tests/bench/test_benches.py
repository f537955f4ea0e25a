"""Every benchmark in bench/ runs in its short mode (``--short``) as a real subprocess, exits 0
and prints its figures, so a change that breaks a bench fails here instead of rotting unseen.

The figures are not judged (their sizes are too small, and timing is not asserted); the
benches that use NATS start the real nats-server, the sandbox bench uses the real Docker
daemon and image (missing in CI: a failure, never a skip).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import SandboxSettings
from tests.conftest import docker_ready, require

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
LIMIT_S = 300
"""Generous: the short modes take seconds, on a machine shared with other work."""

FIGURES = {
    "bus.py": [r"throughput ratio typed/raw as the same role: \d+\.\d+x", r"p50 ratio .*: \d"],
    "distributed.py": [r"2 workers / 1 worker: median \d", r"4 workers / 1 worker: median \d"],
    "live_view.py": [r"ratio live/plain: +median \d+\.\d+"],
    "model_server.py": [r"all +ratio lookup/plain: median \d+\.\d+"],
    "replay.py": [r"ratio typed / plain discarded +\d+\.\d+x"],
    "scale.py": [r"makespan / critical path: median \d+\.\d+x", r"peak RSS .*: \d+ MiB"],
    "schedule.py": [
        r"no rate limit : median \d+\.\d+x .* the critical path",
        r"rpm \S+ +: median \d+\.\d+x",
        r"manager CPU +: median \d+\.\d+ ms/task",
    ],
    "startup.py": [r"society --help: median \d", r"quickstart run: process wall median \d"],
    "tools.py": [r"ratio of p50s: \d+\.\d+x"],
}
"""The figures each bench prints (its closing lines), as patterns."""
DOCKER = {"sandbox.py": [r"warm/cold \d+\.\d+", r"third / first \(warm\), per burst: median \d"]}
"""The benches that need Docker and the sandbox image."""


def run_short(name: str) -> str:
    """Run ``bench/<name> --short``; its stdout, after checking it exited 0."""
    done = subprocess.run(
        [sys.executable, str(BENCH / name), "--short"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def assert_figures(name: str, out: str, patterns: list[str]) -> None:
    for pattern in patterns:
        assert re.search(pattern, out), f"{name} did not print /{pattern}/:\n{out[-2000:]}"


def test_every_bench_is_covered() -> None:
    """A bench added to bench/ is run here too."""
    benches = [p.name for p in BENCH.glob("*.py") if p.name != "common.py"]  # shared helpers
    assert sorted(benches) == sorted(FIGURES | DOCKER)


@pytest.mark.nats
@pytest.mark.timeout(LIMIT_S + 60)
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_bench_runs_short_and_prints_its_figures(name: str) -> None:
    assert_figures(name, run_short(name), FIGURES[name])


@pytest.mark.docker
@pytest.mark.timeout(LIMIT_S + 60)
@pytest.mark.parametrize("name", sorted(DOCKER))
def test_docker_bench_runs_short_and_prints_its_figures(name: str) -> None:
    ok, why = docker_ready(SandboxSettings().image)
    require(ok, why)
    assert_figures(name, run_short(name), DOCKER[name])
