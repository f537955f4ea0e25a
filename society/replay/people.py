"""`PeopleReplay`: what people said in a recorded run, said again in its re-run.

People are the one input a re-run cannot ask for, so their messages (answers, remarks,
ratings, pause/resume/abort, presence) are sent again as they were. A message that
answered another (an answer to a question) is sent once that message's counterpart
appears in the re-run — the same lane and position — after the delay it took the first
time, with its parent link pointing at the counterpart; a message that answered nothing
is sent at the same time after the goal as it was.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass

import structlog

from bus import Bus, BusError, ConnectOptions, Envelope, subjects
from bus.logfile import LogRecord
from bus.payloads import Goal
from society.replay.compare import Places

__all__ = ["PeopleReplay", "said_by_people"]

log = structlog.get_logger("replay")

Place = tuple[tuple[str, str], int]


@dataclass(frozen=True)
class _Said:
    envelope: Envelope
    after: Place | None
    """The place of the message it answered (None: it answered nothing)."""
    delay_s: float
    """How long after that message (or after the goal) it was said."""


def said_by_people(records: list[LogRecord]) -> list[_Said]:
    """The people's messages of a recorded run, each with what it waits for."""
    places = Places()
    times: dict[str, int] = {}
    goal_ts: int | None = None
    said = []
    for record in records:
        env = record.envelope
        if env is None:
            continue
        if isinstance(env.payload, Goal) and goal_ts is None:
            goal_ts = env.ts
        if env.role == "human":
            after = places.of.get(env.parent_id or "")
            start = times.get(env.parent_id or "") if after else goal_ts
            delay = max(0.0, (env.ts - (start if start is not None else env.ts)) / 1e6)
            said.append(_Said(env, after, delay))
        places.add(env)
        times[env.id] = env.ts
    return said


class PeopleReplay:
    """Sends the recorded people's messages into a re-run (an async context manager)."""

    def __init__(
        self, connect: ConnectOptions, run_id: str, records: list[LogRecord], pace: bool = True
    ) -> None:
        self.bus = Bus(connect, name=f"{run_id}-people-replay")
        self.run_id = run_id
        self.pace = pace
        self.places = Places()
        self.waiting: dict[Place | None, list[_Said]] = defaultdict(list)
        for s in said_by_people(records):
            self.waiting[s.after].append(s)
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def pending(self) -> int:
        """Messages not sent yet."""
        return sum(len(v) for v in self.waiting.values())

    async def __aenter__(self) -> PeopleReplay:
        await self.bus.connect()
        await self.bus.subscribe(subjects.run_wildcard(self.run_id), self._on_message)
        await self.bus.flush()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.bus.close()

    async def _on_message(self, env: Envelope) -> None:
        if env.role == "human":
            self.places.add(env)
            return  # ours, or a live person's
        place = self.places.add(env)
        due = self.waiting.pop(None, []) if isinstance(env.payload, Goal) else []
        if place is not None:
            due += self.waiting.pop(place, [])
        for said in due:
            parent = env.id if said.after is not None else None
            task = asyncio.get_running_loop().create_task(self._say(said, parent))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _say(self, said: _Said, parent: str | None) -> None:
        if self.pace and said.delay_s > 0:
            await asyncio.sleep(said.delay_s)
        env = said.envelope
        try:
            await self.bus.send(
                self.run_id, env.sender, env.payload, parent_id=parent, task_id=env.task_id
            )
        except BusError as exc:  # the run is ending
            log.warning(
                "could not replay a person's message", type=env.payload.type, error=str(exc)
            )
