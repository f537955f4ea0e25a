"""Where a person attaching to a run finds its NATS server and their credential, and
connecting to it.

``society run`` starts an embedded nats-server for each run and writes its URL to
``<runs dir>/<run id>/server.json``; ``society attach RUN`` reads it from there (the
runs folder is ``--runs-dir``, ``runs`` by default). With ``--nats URL`` it uses that
server instead: a run started with ``--nats``, or one on another machine.

The run's own server lets in only the run's identities: a person attaches with their
credential (``--creds FILE``, from ``society invite``), or, as the run's owner on its
machine, with the one in ``creds/`` (issued on the spot for a new name).
Connecting is bounded in time, and every failure is a `RunNotFound` or a
`ServerUnreachable` that says what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from bus import Bus, BusConnectError, BusError, ConnectOptions, RunLogError, runlog, subjects
from society.connect import connect_options
from society.credentials import Credential, RunCredentials, load_credential
from society.errors import RunNotFound, ServerUnreachable

__all__ = ["RunAddress", "connect_to_run", "locate_run"]


@dataclass(frozen=True)
class RunAddress:
    """A run's server, and where we learnt it."""

    run_id: str
    url: str
    server_file: Path | None = None
    """The ``server.json`` the URL came from (None: given with ``--nats``)."""
    credential: Credential | None = None
    """Who connects (None: the URL's or the environment's login, if any)."""
    fresh: bool = False
    """The credential was just issued: the server may take a moment to load it."""

    def options(self, timeout_s: float) -> ConnectOptions:
        """How to connect: the URL, logged in with the credential when there is one."""
        base = connect_options(self.url, role="human")
        base = dataclasses.replace(base, connect_timeout=timeout_s)
        return base if self.credential is None else self.credential.options(base)


def locate_run(
    run_id: str,
    *,
    runs_dir: Path,
    nats_url: str | None = None,
    creds: Path | None = None,
    person: str | None = None,
) -> RunAddress:
    """The server of ``run_id`` (``nats_url`` if given, else the run's ``server.json``)
    and the credential to use: ``creds``, else ``person``'s in the run folder."""
    try:
        subjects.check_token(run_id, "run id")
    except BusError as exc:
        raise RunNotFound(str(exc)) from None
    credential = None if creds is None else load_credential(creds)
    if credential is not None and credential.run_id != run_id:
        msg = f"{creds} is a credential for run {credential.run_id!r}, not {run_id!r}"
        raise RunNotFound(msg)
    if nats_url:
        return RunAddress(run_id, nats_url, credential=credential)
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
        where = json.loads(server_file.read_text())
        url = str(where["url"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"{server_file} is not readable ({exc}): attach with --nats URL"
        raise RunNotFound(msg) from None
    fresh = False
    if credential is None and where.get("creds") and person is not None:
        credential, fresh = RunCredentials(run_dir, run_id).invite(person)
    return RunAddress(run_id, url, server_file, credential, fresh)


async def connect_to_run(address: RunAddress, bus_name: str, timeout_s: float = 5.0) -> Bus:
    """An open `Bus` to the run's server, once the run is known to be there."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    bus = await _connect(address, bus_name, timeout_s)
    while True:
        try:
            found = await runlog.run_exists(bus, address.run_id)
            break
        except BusError as exc:
            loading = isinstance(exc, RunLogError) and exc.unavailable  # a reload (SIGHUP)
            if loading and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.1)
                continue
            await bus.close()
            msg = f"cannot read the run log on {address.url}: {exc}"
            raise ServerUnreachable(msg) from None
    if not found:
        await bus.close()
        msg = f"no run {address.run_id!r} on the server at {address.url} (check the run id)"
        raise RunNotFound(msg)
    return bus


async def _connect(address: RunAddress, bus_name: str, timeout_s: float) -> Bus:
    """Connect; a credential issued a moment ago is retried until the server has it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        bus = Bus(address.options(timeout_s), name=bus_name, reports=False)
        try:
            async with asyncio.timeout(timeout_s + 1):
                await bus.connect()
            return bus
        except BusConnectError as exc:
            if exc.needs_credentials and address.fresh and loop.time() < deadline:
                await asyncio.sleep(0.1)  # the server reloads its users on SIGHUP
                continue
            if exc.needs_credentials:
                raise ServerUnreachable(str(exc)) from None
            raise ServerUnreachable(_unreachable(address, exc.reason)) from None
        except TimeoutError:
            raise ServerUnreachable(_unreachable(address, "no answer in time")) from None


def _unreachable(address: RunAddress, reason: str) -> str:
    if address.server_file is None:
        return f"cannot reach NATS at {address.url} ({reason}): is the server up? check --nats"
    run_dir = address.server_file.parent
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if json.loads((run_dir / "summary.json").read_text()).get("status") == "parked":
            return (
                f"run {address.run_id!r} is parked, waiting for a person: continue it with "
                f"`society resume {address.run_id} --runs-dir {run_dir.parent} --human`"
            )
    log = run_dir / "log.jsonl"
    after = f"; its log is {log}" if log.is_file() else ""
    return (
        f"run {address.run_id!r}: its server at {address.url} does not answer ({reason}); "
        f"the run has probably ended{after}"
    )
