"""The runner's observer of a run: what it takes from the log so far when a run resumes."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from bus import ConnectOptions, Envelope, runlog
from bus.payloads import Control, Goal
from society.live import LiveView
from society.observer import RunObserver
from society.progress import RunState

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
