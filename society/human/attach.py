"""Taking part in a run: from another terminal (``society attach``) or from the terminal
that runs it (``society run --human``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from bus import Bus, ConnectOptions
from bus.payloads import Final
from society.human.lines import read_lines
from society.human.locate import connect_to_run, locate_run
from society.human.session import HumanSession, cancel_all, person_name
from society.view.terminal_text import safe_line

__all__ = ["attach", "human_in_run"]


async def attach(
    run_id: str,
    *,
    runs_dir: Path,
    nats_url: str | None,
    name: str | None,
    console: Console,
    connect_timeout_s: float = 5.0,
    creds: Path | None = None,
) -> Final | None:
    """Join a running society as a person, reading commands from stdin, until it ends or
    the person quits; raises `RunNotFound` or `ServerUnreachable` with what to do."""
    person = person_name(name)
    address = locate_run(run_id, runs_dir=runs_dir, nats_url=nats_url, creds=creds, person=person)
    if address.credential is not None:  # the server knows us by our credential
        person = address.credential.sender.partition("/")[2]
    if address.fresh:
        where = escape(safe_line(f"{person} in {address.server_file}"))
        console.print(f"[dim]issued a credential for {where}'s creds/[/]")
    bus = await connect_to_run(address, f"{run_id}-human-{person}", connect_timeout_s)
    try:
        console.print(f"[bold]run {run_id}[/] at {address.url}: the conversation so far")
        session = HumanSession(bus, run_id, person, console, read_lines())
        return await session.run()
    finally:
        await bus.close()


@contextlib.asynccontextmanager
async def human_in_run(
    connect: ConnectOptions, run_id: str, name: str | None, console: Console
) -> AsyncIterator[HumanSession]:
    """The running terminal as the human of its own run, for as long as the block lasts."""
    person = person_name(name)
    async with Bus(connect, name=f"{run_id}-human-{person}", reports=False) as bus:
        session = HumanSession(bus, run_id, person, console, read_lines())
        task = asyncio.create_task(session.run(), name="human-session")
        try:
            yield session
        finally:
            await cancel_all([task])
            outcome = None if task.cancelled() else task.exception()
            if isinstance(outcome, Exception):
                console.print(Text(safe_line(f"the human session failed: {outcome}"), style="red"))
            await session.leave()
