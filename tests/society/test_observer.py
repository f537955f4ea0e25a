"""The runner's observer of a run: what it takes from the log so far when a run resumes."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from bus import Bus, ConnectOptions, Envelope, runlog
from bus.logfile import LogRecord
from bus.payloads import Control, Final, Goal
from society.run.observer import RunObserver
from society.view.live import LiveView
from society.view.progress import RunState

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]


async def test_a_resumed_run_is_not_parked_by_the_park_in_its_log(
    nats_url: str, run_id: str
) -> None:
    view = LiveView(Console(file=io.StringIO()), RunState(run_id), quiet=True)
    async with RunObserver(ConnectOptions.from_url(nats_url), run_id, view) as observer:
        await runlog.ensure_stream(observer.bus)
        await observer.take_in(
            [
                Envelope.new(run_id, "runner/0", Goal(text="g")),
                Envelope.new(run_id, "manager/0", Control(action="park", reason="r", by="manager")),
            ]
        )
        assert observer.parked is not None  # the log so far ended parked...
        await observer.resumed(2, 0)
        assert observer.parked is None  # ...and the resumed run waits for its own final
        assert not observer.final_seen.is_set()


def _observer(nats_url: str, run_id: str) -> RunObserver:
    view = LiveView(Console(file=io.StringIO()), RunState(run_id), quiet=True)
    return RunObserver(ConnectOptions.from_url(nats_url), run_id, view)


def _finals(records: list[LogRecord]) -> list[str]:
    return [r.envelope.id for r in records if r.envelope and isinstance(r.envelope.payload, Final)]


async def test_a_final_seen_but_never_stored_is_in_the_log(nats_url: str, run_id: str) -> None:
    """The manager's own store of it was cut short (stopped while the stream elected a
    leader): the runner stores the final it saw, so the exported log ends with it."""
    final = Envelope.new(run_id, "manager/0", Final(status="succeeded", answer="a"))
    async with _observer(nats_url, run_id) as observer:
        await runlog.ensure_stream(observer.bus)
        await observer._observe(final)  # as the subscription would have delivered it
        await observer.wait_final(30)
        assert _finals(await runlog.fetch_run(observer.bus, run_id)) == [final.id]


async def test_a_stored_final_is_kept_once(nats_url: str, run_id: str) -> None:
    final = Envelope.new(run_id, "manager/0", Final(status="succeeded", answer="a"))
    async with (
        _observer(nats_url, run_id) as observer,
        Bus(nats_url, name="manager", durable=True) as manager,
    ):
        await runlog.ensure_stream(observer.bus)
        await manager.publish(final)  # returns once the stream holds it
        await observer._observe(final)
        await observer.wait_final(30)
        assert _finals(await runlog.fetch_run(observer.bus, run_id)) == [final.id]


async def test_a_final_read_from_the_log_is_not_stored_again(nats_url: str, run_id: str) -> None:
    """What the log held is not written again (a resumed finished run, long after its final:
    the stream's duplicate window would not catch it)."""
    final = Envelope.new(run_id, "manager/0", Final(status="succeeded", answer="a"))
    async with _observer(nats_url, run_id) as observer:
        await runlog.ensure_stream(observer.bus)
        await observer.take_in([final])
        await observer.wait_final(30)
        assert _finals(await runlog.fetch_run(observer.bus, run_id)) == []
