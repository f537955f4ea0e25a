"""Sandbox latency: the warm pool against a cold hardened `docker run` and AutoGen's executor.

Prints p50/p95 latency of executing `print(1+1)` and a small CPU snippet, through
(1) `sandbox.Sandbox` (warm pool; the pool is let refill and the used container is removed
before each timed run, so every run gets a fresh, ready container),
(a) a cold hardened `docker run` (`containers.run` with the same hardening, created, started,
waited and its output read per run; removal not counted), and
(b) AutoGen's `DockerCommandLineCodeExecutor` on the same image (one long-lived container,
`docker exec` per run), all in the same run, with the ratios, and which of the sandbox's
hardening settings AutoGen's container lacks (from its HostConfig).

    python bench/sandbox.py [--runs 40] [--image society-sandbox:1]
    python bench/sandbox.py --short   # seconds: small sizes, checks that it runs
    python bench/sandbox.py --against python:3.12-slim [--rounds 4]   # two images, interleaved

Then back-to-back executions (issue 18): bursts of three executions, each started as the
one before ends, from an idle pool of the default size; the third's latency against the
first's (a warm one) in the same burst, as the median and spread of the per-burst ratios.

Targets: warm-pool p50 <= 0.5x AutoGen's executor and <= 0.5x cold (issue 3); the third
back-to-back execution <= 3x a warm one (issue 18).
AutoGen's executor needs `autogen-ext[docker]` (it imports `asyncio_atexit`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import common  # before the project's packages: it drops bench/ from the path
import docker
from docker.types import LogConfig

from sandbox import (
    Sandbox,
    SandboxSettings,
    connect,
    container_labels,
    hardening,
    remove_containers,
)
from society.logs import configure_logging

SNIPPETS = {
    "print(1+1)": ("print(1+1)", "2"),
    "cpu (sum of squares, 200k)": (
        "print(sum(i * i for i in range(200_000)))",
        str(sum(i * i for i in range(200_000))),
    ),
}
WARMUP = 3
LABEL = f"bench-{os.getpid()}"
# AutoGen runs `python`; the offline stand-in image only has `python3`.
AUTOGEN_INIT = 'command -v python >/dev/null || ln -s "$(command -v python3)" /usr/local/bin/python'

Timings = dict[str, list[float]]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


Run = Callable[[], Awaitable[tuple[str, float]]]
"""One execution: returns its output and the seconds it took (untimed set-up excluded)."""


async def clocked(work: Awaitable[str]) -> tuple[str, float]:
    started = time.perf_counter()
    out = await work
    return out, time.perf_counter() - started


async def timed(run: Run, expect: str, runs: int) -> list[float]:
    """Time ``runs`` calls (after a warm-up), checking each printed the expected value."""
    samples = []
    for i in range(WARMUP + runs):
        out, elapsed = await run()
        if out.strip() != expect:
            msg = f"unexpected output {out!r}"
            raise RuntimeError(msg)
        if i >= WARMUP:
            samples.append(elapsed)
    return samples


async def bench_warm(settings: SandboxSettings, runs: int) -> Timings:
    results: Timings = {}
    async with Sandbox(settings, label=LABEL) as sb:

        async def execute(code: str) -> str:
            result = await sb.execute(code)
            if not result.ok:
                msg = f"sandbox failed: {result.error or result.stderr}"
                raise RuntimeError(msg)
            return result.stdout

        for name, (code, expect) in SNIPPETS.items():

            async def once(code: str = code) -> tuple[str, float]:
                await sb.wait_idle()  # refill the pool, remove the used container: not timed
                return await clocked(execute(code))

            results[name] = await timed(once, expect, runs)
    return results


async def bench_back_to_back(image: str, bursts: int) -> list[list[float]]:
    """Latencies of each burst of three back-to-back executions (default pool settings)."""
    out: list[list[float]] = []
    async with Sandbox(SandboxSettings(image=image, timeout_s=30), label=LABEL) as sb:
        for _ in range(bursts):
            await sb.wait_idle()  # between bursts the pool refills: not timed
            burst = []
            for _ in range(3):
                result, elapsed = await clocked_result(sb.execute("print(1+1)"))
                if result.stdout.strip() != "2":
                    msg = f"sandbox failed: {result.error or result.stderr}"
                    raise RuntimeError(msg)
                burst.append(elapsed)
            out.append(burst)
    return out


async def clocked_result(work: Awaitable[Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = await work
    return result, time.perf_counter() - started


def report_back_to_back(bursts: list[list[float]]) -> float:
    """Print each position's latency and the third/first ratio; returns its median."""
    print("\nback to back (bursts of 3 from an idle default pool)")
    first = bursts[0]
    print("  first burst (the pool has not seen one yet): " + ", ".join(_ms(t) for t in first))
    later = bursts[1:] or bursts
    for i in range(3):
        column = [b[i] for b in later]
        print(f"  execution {i + 1} of later bursts: median {_ms(statistics.median(column))}")
    ratios = sorted(b[2] / b[0] for b in later)
    median = statistics.median(ratios)
    print(
        f"  third / first (warm), per burst: median {median:.2f}x, "
        f"spread {ratios[0]:.2f}-{ratios[-1]:.2f} over {len(ratios)} bursts (target <= 3)"
    )
    return median


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


async def bench_cold(client: docker.DockerClient, settings: SandboxSettings, runs: int) -> Timings:
    """`docker run` with the sandbox's hardening (logs kept: `run` reads output from them)."""
    options = hardening(settings) | {"log_config": LogConfig(type="json-file")}
    labels = container_labels(LABEL, "cold")

    def run_blocking(code: str, name: str) -> str:
        out = client.containers.run(
            settings.image,
            ["python3", "-c", code],
            name=name,
            user=settings.user,
            labels=labels,
            stdout=True,
            stderr=True,
            detach=False,
            **options,
        )
        return bytes(out).decode()

    async def run(code: str, name: str) -> str:
        return await asyncio.to_thread(run_blocking, code, name)

    results: Timings = {}
    for snippet, (code, expect) in SNIPPETS.items():

        async def once(code: str = code) -> tuple[str, float]:
            name = f"society-bench-{uuid.uuid4().hex[:12]}"
            try:
                return await clocked(run(code, name))
            finally:  # removal is not counted
                await asyncio.to_thread(client.api.remove_container, name, force=True)

        results[snippet] = await timed(once, expect, runs)
    return results


async def bench_autogen(
    client: docker.DockerClient, image: str, runs: int
) -> tuple[Timings, dict[str, Any]]:
    from autogen_core import CancellationToken
    from autogen_core.code_executor import CodeBlock
    from autogen_ext.code_executors.docker import DockerCommandLineCodeExecutor

    results: Timings = {}
    with tempfile.TemporaryDirectory() as work_dir:
        executor = DockerCommandLineCodeExecutor(
            image=image, work_dir=work_dir, timeout=60, init_command=AUTOGEN_INIT
        )
        async with executor:
            info = await asyncio.to_thread(client.api.inspect_container, executor.container_name)

            async def execute(code: str) -> str:
                block = CodeBlock(code=code, language="python")
                result = await executor.execute_code_blocks([block], CancellationToken())
                return str(result.output)

            for name, (code, expect) in SNIPPETS.items():

                async def once(code: str = code) -> tuple[str, float]:
                    return await clocked(execute(code))

                results[name] = await timed(once, expect, runs)
    return results, info


async def bench_local(runs: int) -> Timings:
    """The floor: a local `python3 -c` (this interpreter) per run, no container."""

    async def execute(code: str) -> str:
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        return done.stdout

    results: Timings = {}
    for name, (code, expect) in SNIPPETS.items():

        async def once(code: str = code) -> tuple[str, float]:
            return await clocked(execute(code))

        results[name] = await timed(once, expect, runs)
    return results


def missing_hardening(info: dict[str, Any], settings: SandboxSettings) -> list[str]:
    """The sandbox's hardening settings that a container (from `docker inspect`) lacks."""
    host, config = info["HostConfig"], info["Config"]
    checks = [
        ("network_mode=none", host.get("NetworkMode") == "none"),
        ("read-only root filesystem", host.get("ReadonlyRootfs") is True),
        ("tmpfs work dir and /tmp (size-limited)", bool(host.get("Tmpfs"))),
        ("unprivileged user", config.get("User") not in ("", "0", "root", None)),
        ("cap_drop ALL", host.get("CapDrop") == ["ALL"]),
        ("no-new-privileges", "no-new-privileges" in (host.get("SecurityOpt") or [])),
        ("memory limit", bool(host.get("Memory"))),
        ("no swap beyond memory", host.get("MemorySwap") == host.get("Memory") != 0),
        ("CPU quota", bool(host.get("NanoCpus") or host.get("CpuQuota"))),
        ("pids limit", bool(host.get("PidsLimit"))),
        ("nofile/fsize ulimits", bool(host.get("Ulimits"))),
        ("no host mounts", not host.get("Binds") and not info.get("Mounts")),
        ("not privileged", host.get("Privileged") is False),
        ("one container per task (not reused)", False),
    ]
    return [name for name, ok in checks if not ok]


def report(label: str, timings: Timings) -> dict[str, float]:
    p50s = {}
    for name, samples in timings.items():
        p50, p95 = percentile(samples, 0.5), percentile(samples, 0.95)
        p50s[name] = p50
        print(f"  {label:<38} {name:<28} p50 {p50 * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms")
    return p50s


async def compare_images(image: str, against: str, rounds: int, runs: int) -> None:
    """Warm p50 (``print(1+1)``) and the third/first back-to-back ratio of two images, measured
    in alternation (A, B, A, B, …); the median and spread of each, and B's against A's."""
    warm: dict[str, list[float]] = {against: [], image: []}
    third: dict[str, list[float]] = {against: [], image: []}
    for n in range(rounds):
        for name in (against, image):
            settings = SandboxSettings(image=name, pool_size=2, timeout_s=30)
            timings = await bench_warm(settings, runs)
            warm[name].append(statistics.median(timings["print(1+1)"]))
            bursts = await bench_back_to_back(name, 6)
            third[name].append(statistics.median(b[2] / b[0] for b in bursts[1:]))
            print(
                f"  round {n + 1} {name}: warm p50 {_ms(warm[name][-1])}, "
                f"third/first {third[name][-1]:.2f}x",
                flush=True,
            )

    def line(label: str, values: dict[str, list[float]], fmt: Callable[[float], str]) -> None:
        for name in (against, image):
            v = sorted(values[name])
            median = statistics.median(v)
            print(f"  {label} {name:<28} median {fmt(median)} (spread {fmt(v[0])}-{fmt(v[-1])})")
        ratio = statistics.median(values[image]) / statistics.median(values[against])
        print(f"  {label} {image} / {against}: {ratio:.2f}x")

    print(f"\n{rounds} rounds, interleaved")
    line("warm p50", warm, _ms)
    line("third/first", third, lambda x: f"{x:.2f}x")


SHORT = {"runs": 3, "bursts": 2, "rounds": 1}
"""The sizes of ``--short`` (`common.parse`)."""


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs per snippet (>= 30)")
    parser.add_argument("--image", default=SandboxSettings().image)
    parser.add_argument("--bursts", type=int, default=11, help="back-to-back bursts of three")
    parser.add_argument(
        "--only-back-to-back", action="store_true", help="skip the latency comparison"
    )
    parser.add_argument("--against", help="compare --image with this image, interleaved")
    parser.add_argument("--rounds", type=int, default=4, help="with --against: rounds of A, B")
    args = common.parse(parser, SHORT)
    if args.against:
        print(f"sandbox bench: {args.image} against {args.against}, {args.runs} warm runs a round")
        await compare_images(args.image, args.against, args.rounds, args.runs)
        remove_containers(connect(), run=LABEL)
        return
    settings = SandboxSettings(image=args.image, pool_size=2, timeout_s=30)
    client = connect()
    print(f"sandbox bench: {args.runs} timed runs per snippet after {WARMUP} warm-up runs")
    print(
        f"image {settings.image}; Docker {client.version().get('Version')}; {os.cpu_count()} CPUs"
    )
    print("warm pool: the pool refills and the used container is removed before each timed run\n")
    bursts = await bench_back_to_back(settings.image, args.bursts)
    if args.only_back_to_back:
        remove_containers(client, run=LABEL)
        report_back_to_back(bursts)
        return
    try:
        warm = await bench_warm(settings, args.runs)
        cold = await bench_cold(client, settings, args.runs)
        try:
            autogen, autogen_info = await bench_autogen(client, settings.image, args.runs)
        except (ImportError, RuntimeError) as exc:
            print(f"AutoGen's executor unavailable ({exc}); install autogen-ext[docker]\n")
            autogen, autogen_info = {}, {}
        local = await bench_local(args.runs)
    finally:
        remove_containers(client, run=LABEL)
    print("latency (wall time as the caller sees it)")
    warm_p50 = report("sandbox warm pool", warm)
    cold_p50 = report("cold hardened docker run", cold)
    autogen_p50 = report("AutoGen DockerCommandLineCodeExecutor", autogen) if autogen else {}
    report("local python3 -c (floor)", local)
    print("\nratios of p50 (target <= 0.5)")
    for name in SNIPPETS:
        line = f"  {name:<28} warm/cold {warm_p50[name] / cold_p50[name]:.2f}"
        if autogen_p50:
            line += f"   warm/AutoGen {warm_p50[name] / autogen_p50[name]:.2f}"
        print(line)
    report_back_to_back(bursts)
    if autogen_info:
        print("\nhardening AutoGen's executor container lacks (from its HostConfig):")
        for item in missing_hardening(autogen_info, settings):
            print(f"  - {item}")
    client.close()


if __name__ == "__main__":
    configure_logging("console", "warning")  # logs to stderr; stdout is for figures
    asyncio.run(main())
