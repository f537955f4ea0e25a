"""``society worker``, ``society nats-config`` and ``society sandbox``: the commands that
operate the pieces of a distributed society."""

# No `from __future__ import annotations`: typer reads every command's annotations at each
# start, and evaluating them from strings took 30-40 ms of every `society` command.
import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from society.cli.support import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    EXIT_FAILED,
    err,
    fail,
    guarded,
    load_or_exit,
    out,
    run_async,
)

__all__ = ["nats_config", "sandbox_app", "worker"]


def worker(
    role: Annotated[
        str, typer.Option("--role", help="planner, researcher, coder, critic or reflector")
    ],
    nats: Annotated[
        str,
        typer.Option(
            "--nats",
            envvar="SOCIETY_NATS",
            help="NATS URL(s), comma-separated; nats://user:password@host:4222 with users",
        ),
    ],
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Tasks at once (default: the scenario's)")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run", help="Serve only this run (default: every run)")
    ] = None,
    scenario: Annotated[
        Path | None,
        typer.Option(help="Use this scenario, not the one the goal carries (local paths, models)"),
    ] = None,
    instance: Annotated[str | None, typer.Option(help="Instance name (default: host-pid)")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders (artifacts) go")] = Path("runs"),
    memory_dir: Annotated[
        Path | None, typer.Option(help="Long-term memory folder (default: RUNS_DIR/memory)")
    ] = None,
    tls_ca: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_CA")] = None,
    tls_cert: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_CERT")] = None,
    tls_key: Annotated[str | None, typer.Option(envvar="SOCIETY_NATS_TLS_KEY")] = None,
) -> None:
    """Serve one role in this process: join runs as they start, sharing the role's tasks
    with its other workers; Ctrl-C or SIGTERM hands tasks in flight to them."""
    from bus.subjects import check_token
    from society.connect import connect_options
    from society.run.assembly import ROLE_CLASSES
    from society.run.gc_policy import settle_after_startup
    from society.run.worker import WorkerHost, WorkerOptions, default_instance

    if role not in ROLE_CLASSES or role == "manager":
        known = ", ".join(r for r in ROLE_CLASSES if r != "manager")
        text = f"--role must be one of {known} (the manager runs with `society run`)"
        raise fail(text, EXIT_BAD_INPUT)
    try:
        name = check_token(instance or default_instance(), "instance")
    except ValueError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    options = WorkerOptions(
        role=role,
        connect=connect_options(nats, role=role, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key),
        concurrency=concurrency,
        run_id=run_id,
        scenario=load_or_exit(scenario) if scenario else None,
        instance=name,
        runs_dir=runs_dir,
        memory_dir=memory_dir,
    )

    async def serve() -> None:
        import asyncio

        if role == "coder":  # fail now, not at the first task, when code cannot run
            from sandbox import connect

            (await asyncio.to_thread(connect)).close()
        from society.tracing.live import from_environment

        with from_environment(f"worker-{role}-{name}", runner=False) or contextlib.nullcontext():
            async with WorkerHost(options) as host:
                settle_after_startup()
                err.print(f"{role} worker {name} ready", highlight=False)
                await host.serve()

    guarded(serve)


def nats_config(
    out: Annotated[Path | None, typer.Option(help="Write here (default: stdout)")] = None,
    roles: Annotated[
        str, typer.Option(help="Comma-separated roles to make users for")
    ] = "manager,planner,researcher,coder,critic,reflector,human",
    routes: Annotated[
        str | None,
        typer.Option(help="Cluster nodes host:port, comma-separated (adds the cluster block)"),
    ] = None,
    tls_cert: Annotated[str | None, typer.Option(help="Server certificate (enables TLS)")] = None,
    tls_key: Annotated[str | None, typer.Option(help="Server key")] = None,
    tls_ca: Annotated[str | None, typer.Option(help="CA to verify client certificates")] = None,
) -> None:
    """nats-server config with one user per role, allowed only its own subjects.

    Passwords come from SOCIETY_NATS_PASSWORD_<ROLE> (e.g. SOCIETY_NATS_PASSWORD_CODER).
    """
    import os

    from bus.permissions import Cluster, Tls, server_config

    wanted = [r.strip() for r in roles.split(",") if r.strip()]
    env = {r: f"SOCIETY_NATS_PASSWORD_{r.upper()}" for r in wanted}
    missing = [v for v in env.values() if not os.environ.get(v)]
    if missing:
        text = f"set the passwords first: {', '.join(missing)}"
        raise fail(text, EXIT_BAD_INPUT)
    cluster = None
    if routes:
        hosts = [h.strip() for h in routes.split(",") if h.strip()]
        cluster = Cluster(routes=tuple(f"nats-route://{h}" for h in hosts))
    tls = Tls(tls_cert, tls_key, tls_ca, verify=bool(tls_ca)) if tls_cert and tls_key else None
    try:
        text = server_config({r: os.environ[v] for r, v in env.items()}, cluster=cluster, tls=tls)
    except ValueError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    out.chmod(0o600)
    err.print(f"wrote {out} (users: {', '.join(wanted)})", highlight=False)


sandbox_app = typer.Typer(
    help="The code sandbox: show its image, remove leftover containers, build images.",
    no_args_is_help=True,
)


@sandbox_app.command("gc")
def sandbox_gc(
    run: Annotated[
        str | None,
        typer.Option(
            "--run", help="Only this run's containers (default: every society sandbox container)"
        ),
    ] = None,
    docker_host: Annotated[str | None, typer.Option("--docker-host")] = None,
) -> None:
    """Remove sandbox containers left behind (by label)."""
    from sandbox import SandboxError, gc

    try:
        removed = run_async(gc(run, docker_host=docker_host))
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    out.print(f"removed {removed} sandbox container(s)")


@sandbox_app.command("show")
def sandbox_show(
    image: Annotated[
        str | None, typer.Argument(help="The image (default: the sandbox's, society-sandbox)")
    ] = None,
    docker_host: Annotated[str | None, typer.Option("--docker-host")] = None,
) -> None:
    """Show a sandbox image and what it holds (its manifest: Python and libraries)."""
    from sandbox import DEFAULT_IMAGE, Manifest, read_manifest

    name = image or DEFAULT_IMAGE
    manifest: Manifest | None = read_manifest(name, docker_host)
    if manifest is None:
        msg = (
            f"{name}: no such image, no manifest on it, or no Docker daemon "
            "(scripts/build-sandbox builds the default image)"
        )
        raise fail(msg, EXIT_ENVIRONMENT)
    out.print(f"{name}: Python {manifest.python}", highlight=False)
    for module in manifest.importable():
        dist = manifest.modules[module]
        out.print(f"  import {module:<10} {dist} {manifest.libraries[dist]}", highlight=False)


@sandbox_app.command("build")
def sandbox_build(
    packages: Annotated[list[str] | None, typer.Argument(help="pip requirements to add")] = None,
    tag: Annotated[str | None, typer.Option("--tag", help="Image tag (default: derived)")] = None,
    base: Annotated[str, typer.Option("--base", help="Base image")] = "python:3.11-slim",
    network: Annotated[
        str | None, typer.Option("--network", help="Network while building, e.g. host")
    ] = None,
    docker_host: Annotated[str | None, typer.Option("--docker-host")] = None,
) -> None:
    """Build a sandbox image with extra pip packages (network only while building)."""
    from sandbox import BuildError, SandboxError, build_image

    try:
        image = build_image(
            packages or [], tag=tag, base=base, network=network, docker_host=docker_host
        )
    except BuildError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    out.print(f"built {image}; use it with `sandbox: {{image: {image}}}` in a scenario")
