"""Where a person attaching to a run finds its NATS server, and connecting to it.

``society run`` starts an embedded nats-server for each run and writes its URL to
``<runs dir>/<run id>/server.json``; ``society attach RUN`` reads it from there (the
runs folder is ``--runs-dir``, ``runs`` by default). With ``--nats URL`` it uses that
server instead: a run started with ``--nats``, or one on another machine.
Connecting is bounded in time, and every failure is a `RunNotFound` or a
`ServerUnreachable` that says what to do.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from bus import Bus, BusConnectError, BusError, ConnectOptions, runlog, subjects
from society.errors import RunNotFound, ServerUnreachable

__all__ = ["RunAddress", "connect_to_run", "locate_run"]


@dataclass(frozen=True)
class RunAddress:
    """A run's server, and where we learnt it."""

    run_id: str
    url: str
    server_file: Path | None = None
    """The ``server.json`` the URL came from (None: given with ``--nats``)."""


def locate_run(run_id: str, *, runs_dir: Path, nats_url: str | None = None) -> RunAddress:
    """The server of ``run_id``: ``nats_url`` if given, else the run's ``server.json``."""
    try:
        subjects.check_token(run_id, "run id")
    except BusError as exc:
        raise RunNotFound(str(exc)) from None
    if nats_url:
        return RunAddress(run_id, nats_url)
    run_dir = runs_dir / run_id
    server_file = run_dir / "server.json"
    if not server_file.is_file():
        if run_dir.is_dir():
            msg = (
                f"run {run_id!r} in {runs_dir} has no server.json (it ran on a server given "
                "with --nats): attach with --nats URL"
            )
        else:
            msg = (
                f"no run {run_id!r} in {runs_dir}: give the runs folder with --runs-dir, "
                "or the run's server with --nats URL"
            )
        raise RunNotFound(msg)
    try:
        url = str(json.loads(server_file.read_text())["url"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"{server_file} is not readable ({exc}): attach with --nats URL"
        raise RunNotFound(msg) from None
    return RunAddress(run_id, url, server_file)


async def connect_to_run(address: RunAddress, bus_name: str, timeout_s: float = 5.0) -> Bus:
    """An open `Bus` to the run's server, once the run is known to be there."""
    bus = Bus(ConnectOptions.from_url(address.url, connect_timeout=timeout_s), name=bus_name)
    try:
        async with asyncio.timeout(timeout_s + 1):
            await bus.connect()
    except (BusConnectError, TimeoutError) as exc:
        reason = exc.reason if isinstance(exc, BusConnectError) else "no answer in time"
        raise ServerUnreachable(_unreachable(address, reason)) from None
    try:
        found = await runlog.run_exists(bus, address.run_id)
    except BusError as exc:
        await bus.close()
        msg = f"cannot read the run log on {address.url}: {exc}"
        raise ServerUnreachable(msg) from None
    if not found:
        await bus.close()
        msg = f"no run {address.run_id!r} on the server at {address.url} (check the run id)"
        raise RunNotFound(msg)
    return bus


def _unreachable(address: RunAddress, reason: str) -> str:
    if address.server_file is None:
        return f"cannot reach NATS at {address.url} ({reason}): is the server up? check --nats"
    log = address.server_file.parent / "log.jsonl"
    after = f"; its log is {log}" if log.is_file() else ""
    return (
        f"run {address.run_id!r}: its server at {address.url} does not answer ({reason}); "
        f"the run has probably ended{after}"
    )
