"""compose.yaml brought up for real: the image built offline (scripts/build-image), a 3-node
NATS cluster with JetStream (the run log on 3 replicas) and every role a service; a run
across the containers survives one NATS node killed mid-run, with nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.logfile import read_jsonl
from bus.payloads import Final, TaskResult
from sandbox import SandboxSettings
from tests.conftest import docker_ready, require
from tests.durable import ANSWER, durable
from tests.test_compose import ROOT, compose_command

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1500)]

SLOW = durable("cluster", planner_s=0, researcher_s=8, sandbox_s=8)
"""`durable`'s run, which takes the live path (the team's plan, the verifier's statement, second
programs and the goal check): the test stops a node while its square is computed."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[list[str]]:
    """The image built, and compose.yaml up (torn down with its volumes afterwards)."""
    cmd = compose_command()
    require(cmd is not None, "neither docker-compose nor the compose plugin is installed")
    assert cmd is not None
    base = SandboxSettings().image  # here: the sandbox's base, built offline by the setup
    ok, why = docker_ready(base)
    require(ok, why)
    env = {**os.environ, "BASE": base, "PYTHON": sys.executable}
    built = subprocess.run(
        [str(ROOT / "scripts" / "build-image")], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    project = [*cmd, "-p", f"society-test-{os.getpid()}", "-f", str(ROOT / "compose.yaml")]
    up = subprocess.run([*project, "up", "-d", "--no-build"], capture_output=True, text=True)
    try:
        assert up.returncode == 0, up.stderr[-3000:]
        yield project
    finally:
        subprocess.run([*project, "down", "-v", "-t", "10"], capture_output=True, timeout=600)


def test_a_run_across_the_containers_survives_a_nats_node_killed_mid_run(
    cluster: list[str], tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "cluster.yaml").write_text(SLOW)
    folder.chmod(0o777)  # the image's unprivileged user writes the run folder here
    run_id = f"cluster-{time.time_ns()}"
    manager = subprocess.Popen(
        [
            *cluster,
            "run",
            "--rm",
            "-T",
            "-v",
            f"{folder}:/app/shared",
            "manager",
            "run",
            "/app/shared/cluster.yaml",
            "--workers",
            "external",
            "--stream-replicas",
            "3",
            "--runs-dir",
            "/app/shared/runs",
            "--run-id",
            run_id,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert manager.stdout is not None
    lines: list[str] = []
    killed = False
    for line in manager.stdout:  # ends when the manager exits
        lines.append(line)
        if not killed and "square (coder) attempt 1" in line:
            # the coder's program sleeps 8 s and the researcher's answer takes 8 s: mid-run
            kill = subprocess.run([*cluster, "kill", "nats-1"], capture_output=True, text=True)
            assert kill.returncode == 0, kill.stderr
            killed = True
    transcript = "".join(lines)
    if manager.wait(timeout=600) != 0:  # what the workers said, to tell why
        logs = subprocess.run(
            [*cluster, "logs", "--no-color", "--tail", "30", "coder", "researcher"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        pytest.fail(f"{transcript}\n--- workers ---\n{logs.stdout[-6000:]}{logs.stderr[-2000:]}")
    assert killed, transcript
    read = read_jsonl(folder / "runs" / run_id / "log.jsonl")
    assert read.problems == [], read.problems
    summary = json.loads((folder / "runs" / run_id / "summary.json").read_text())
    seqs = [r.seq for r in read.records]  # heartbeats are left out of the file, and counted
    assert seqs == sorted(set(seqs)) and seqs[0] == 1
    assert seqs[-1] <= len(seqs) + summary["heartbeats_left_out"]  # nothing lost from the log
    payloads = [r.envelope.payload for r in read.records if r.envelope]
    done = Counter(p.task_id for p in payloads if isinstance(p, TaskResult) and p.status == "done")
    assert done == {"fact": 1, "square": 1, "combine": 1}, done
    finals = [p for p in payloads if isinstance(p, Final)]
    assert [(f.status, f.answer) for f in finals] == [("succeeded", ANSWER)]
    assert summary["status"] == "succeeded"
