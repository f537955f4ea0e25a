"""`HumanSession`: one person taking part in a run as the ``human`` role.

It prints the conversation so far (from the JetStream run log), announces the person
(`Presence` of ``human/<name>``, with heartbeats, and a goodbye), then follows the run
live while turning each typed line into a typed message: an `Answer`, a `Chat`, a
`Control` or a `Rating`. It ends when the run ends (after showing the final message),
or when the person quits; the run goes on without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import AsyncIterator, Collection
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from bus import Bus, BusError, subjects
from bus.logfile import LogRecord
from bus.payloads import Answer, Chat, Control, Final, Payload, Presence, Rating
from bus.runlog import fetch_run, follow_run
from roles.presence import HEARTBEAT_S
from society.errors import ServerUnreachable
from society.human.commands import (
    HELP,
    Approve,
    Command,
    CommandError,
    Rate,
    Reject,
    Reply,
    Say,
    Simple,
    Steer,
    parse_command,
)
from society.human.state import AskedQuestion, Conversation
from society.human.transcript import describe, render
from society.view.terminal_text import safe_line

__all__ = ["HumanSession", "cancel_all", "person_name"]

LOST_S = 10.0
"""How long the server may be unreachable before the session gives up."""


async def cancel_all(tasks: Collection[asyncio.Task[Any]]) -> None:
    """Cancel tasks and wait until they are done, cancelling again while they are not.

    On Python 3.11 a cancel that races with a reply inside a library's ``wait_for`` is
    swallowed (nats-py's requests use it), so one cancel is not always enough.
    """
    pending = {t for t in tasks if not t.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.5)
    await asyncio.gather(*tasks, return_exceptions=True)


def person_name(name: str | None) -> str:
    """A name usable in a sender (``human/<name>``): the login name by default."""
    if not name:
        name = os.environ.get("USER") or os.environ.get("LOGNAME") or "human"
    return subjects.safe_token(name, max_len=40, fallback="human")


class HumanSession:
    """A person attached to one run over an open `Bus`."""

    def __init__(
        self,
        bus: Bus,
        run_id: str,
        name: str,
        console: Console,
        lines: AsyncIterator[str] | None = None,
    ) -> None:
        self.bus = bus
        self.run_id = run_id
        self.name = person_name(name)
        self.console = console
        self.lines = lines
        self.conv = Conversation()
        self.announced = False
        self.ready = asyncio.Event()
        """Set once the history is read (and the person announced, unless the run had ended)."""

    @property
    def sender(self) -> str:
        """``human/<name>``."""
        return f"human/{self.name}"

    async def run(self) -> Final | None:
        """Show the run, take commands; returns the final message when the run ended."""
        history = await fetch_run(self.bus, self.run_id)
        for record in history:
            self._show(record)
        if self.conv.final is not None:
            self.console.print(f"[bold]run {self.run_id} has ended[/] ({self.conv.final.status})")
            late = self.conv.human.ratings_closed(self.conv.final_ts, time.time())
            if late is not None:
                self.console.print(f"[dim]{escape(late)}[/]", highlight=False)
            self.ready.set()
            return self.conv.final
        self._pick_name()
        await self._send(
            Presence(status="up", role="human", host=socket.gethostname(), pid=os.getpid())
        )
        self.announced = True
        self.ready.set()
        self._banner()
        last = history[-1].seq if history else 0
        jobs = [
            asyncio.create_task(self._follow(last + 1), name="human-follow"),
            asyncio.create_task(self._keepalive(), name="human-keepalive"),
        ]
        if self.lines is not None:
            jobs.append(asyncio.create_task(self._commands(self.lines), name="human-input"))
        try:
            done, _ = await asyncio.wait(jobs, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await cancel_all(jobs)
            await self.leave()
        for job in done:
            job.result()  # the keepalive's ServerUnreachable
        return self.conv.final

    async def leave(self) -> None:
        """Say goodbye (once; never raises: the run's server may be gone already)."""
        if not self.announced:
            return
        self.announced = False
        with contextlib.suppress(BusError):
            await self._send(Presence(status="down", role="human"))
            await self.bus.flush(timeout=2)

    # -- showing the run -----------------------------------------------------------------

    def _show(self, record: LogRecord) -> None:
        env = record.envelope
        if env is None:
            what = safe_line(f"refused message on {record.subject}: {record.error}")
            self.console.print(Text(what, style="red"), soft_wrap=True)
            return
        asked = self.conv.apply(env)
        if env.payload.type == "answer" and asked is not None and asked.answer is not env.payload:
            lines = describe(env, asked)
            if lines:
                why = "already settled" if asked.answer is not None else "not theirs to decide"
                lines[0] += f"  (ignored: {why})"
        else:
            lines = describe(env, asked)
        if lines:
            self.console.print(render(env, lines), soft_wrap=True)

    def _banner(self) -> None:
        self.console.rule(f"live · you are {self.name} · type help for commands", style="dim")
        self._print_pending()

    def _print_pending(self) -> None:
        pending = self.conv.pending()
        if not pending:
            self.console.print("[dim]nothing waits for an answer[/]")
        for q in pending:
            left = max(0, round(q.seconds_left()))
            first = q.question.text.splitlines()[0] if q.question.text else ""
            line = Text(f"waiting: {q.label}", style="bold")
            line.append(
                safe_line(
                    f" {q.question.kind.replace('_', ' ')} from {q.asker} ({left}s left, then "
                    f"{q.question.default!r}): {first}"
                )
                + f"\n  → {safe_line(q.how_to_answer())}"
            )
            self.console.print(line, soft_wrap=True)

    async def _follow(self, from_seq: int) -> None:
        """Show the run to its final message, then while ratings are open."""
        records = follow_run(self.bus, self.run_id, from_seq=from_seq)
        async for record in records:
            self._show(record)
            if self.conv.final is not None:
                break
        window = self.conv.human.rating_window_s
        if self.conv.final is None or window <= 0:
            return
        self.console.print(
            f"[bold]ratings are open for {window:g}s[/]: rate <task> <1-5> [comment]; quit to leave"
        )
        assert self.conv.final_ts is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, self.conv.final_ts / 1e6 + window - time.time())):
                async for record in records:
                    self._show(record)
        self.console.print("[dim]ratings are closed: leaving the run[/]")

    async def _keepalive(self) -> None:
        """Heartbeats while connected; give up when the server is gone for `LOST_S`."""
        loop = asyncio.get_running_loop()
        beat = lost = loop.time()
        while True:
            await asyncio.sleep(0.5)
            now = loop.time()
            if self.bus.is_connected:
                lost = now
            elif now - lost > LOST_S:
                msg = (
                    f"lost the connection to the run's server for {LOST_S:g}s: "
                    "the run has probably ended (its log is in the run folder)"
                )
                raise ServerUnreachable(msg)
            if now - beat >= HEARTBEAT_S and self.bus.is_connected:
                beat = now
                with contextlib.suppress(BusError):
                    await self._send(Presence(status="heartbeat", role="human"))

    # -- taking commands -----------------------------------------------------------------

    async def _commands(self, lines: AsyncIterator[str]) -> None:
        async for line in lines:
            try:
                command = parse_command(line, self.conv.known_ids)
                if command is not None and not await self.execute(command):
                    return
            except CommandError as exc:
                self.console.print(Text(safe_line(f"? {exc}"), style="red"), soft_wrap=True)
        self.console.print("[dim]end of input: leaving the run (it goes on)[/]")

    async def execute(self, command: Command) -> bool:
        """Carry out one command; False when the person leaves."""
        match command:
            case Simple(what="quit"):
                self.console.print("[dim]leaving the run (it goes on)[/]")
                return False
            case Simple(what="help"):
                self.console.print(Text(HELP), soft_wrap=True)
            case Simple(what="pending"):
                self._print_pending()
            case Simple():
                people = ", ".join(self.conv.attached()) or "nobody"
                self.console.print(Text(safe_line(f"attached: {people}")), highlight=False)
            case Approve(target=target):
                await self._answer(self.conv.find(target, {"plan_approval"}), "approve", True)
            case Reject(target=target, reason=reason):
                await self._answer(self.conv.find(target, {"plan_approval"}), reason, False)
            case Reply(target=target, text=text):
                await self._reply(self.conv.find(target), text)
            case Say(to=to, text=text):
                if to is not None and to not in self.conv.roles:
                    roles = ", ".join(sorted(self.conv.roles))
                    msg = f"no role {to!r} in this run (roles: {roles})"
                    raise CommandError(msg)
                await self._send(Chat(text=text, to=to, by=self.name))
            case Steer(action=action, reason=reason):
                await self._send(Control(action=action, reason=reason, by=self.name))
            case Rate(task_id=task_id, score=score, comment=comment, expect=expect, check=check):
                late = self.conv.human.ratings_closed(self.conv.final_ts, time.time())
                if late is not None:
                    raise CommandError(late)
                if task_id not in self.conv.results:
                    done = ", ".join(sorted(self.conv.results)) or "none yet"
                    msg = f"task {task_id!r} has no result to rate (tasks with results: {done})"
                    raise CommandError(msg)
                rating = Rating(
                    task_id=task_id,
                    score=score,
                    comment=comment,
                    by=self.name,
                    expect=expect,
                    check=check,
                )
                await self._send(rating, task_id=task_id)
        return True

    async def _reply(self, asked: AskedQuestion, text: str) -> None:
        q = asked.question
        word, _, rest = text.partition(" ")
        if q.kind == "plan_approval":
            if word.lower() not in ("approve", "reject"):
                msg = f"{asked.label} is a plan approval: {asked.how_to_answer()}"
                raise CommandError(msg)
            if word.lower() == "reject" and not rest.strip():
                msg = f"say why: reject {asked.label} <reason>"
                raise CommandError(msg)
            approve = word.lower() == "approve"
            await self._answer(asked, "approve" if approve else rest.strip(), approve)
            return
        if q.options and word.lower() not in (o.lower() for o in q.options):
            msg = f"{asked.label} takes one of: {', '.join(q.options)} (then any words)"
            raise CommandError(msg)
        await self._answer(asked, text, None)

    async def _answer(self, asked: AskedQuestion, text: str, approved: bool | None) -> None:
        if asked.answer is not None:
            settled = asked.answer
            how = "the default" if settled.by == "default" else escape(safe_line(settled.by))
            self.console.print(
                f"[yellow]notice:[/] {asked.label} was already settled by {how}; yours is not sent",
                highlight=False,
            )
            return
        answer = Answer(question_id=asked.qid, text=text, approved=approved, by=self.name)
        await self._send(answer, parent=asked.message_id, task_id=asked.task_id)

    def _pick_name(self) -> None:
        """Make the name unique among the people attached, and say so if it changed."""
        taken = set(self.conv.attached())
        base, n = self.name, 2
        while self.name in taken:
            self.name, n = f"{base}-{n}", n + 1
        if self.name != base:
            self.console.print(f"[yellow]{base} is already attached: you are {self.name}[/]")

    async def _send(
        self, payload: Payload, *, parent: str | None = None, task_id: str | None = None
    ) -> str:
        return await self.bus.send(
            self.run_id, self.sender, payload, parent_id=parent, task_id=task_id
        )
