"""The manager's phase is one value in its ledger that moves only by the events of its
table: a person's resume does not end an escalation, a stop is not undone, a finish is once."""

from __future__ import annotations

from typing import get_args

import pytest

from roles.manager.ledger import MOVES, Event, Ledger, Phase


def _after(*events: Event) -> Phase:
    ledger = Ledger()
    for event in events:
        ledger.move(event)
    return ledger.phase


@pytest.mark.parametrize(
    ("events", "phase"),
    [
        ((), Phase.RUNNING),
        (("pause",), Phase.PAUSED),
        (("pause", "resume"), Phase.RUNNING),
        (("escalate", "resume"), Phase.ESCALATING),  # a person's resume: the escalation waits
        (("escalate", "pause", "answered"), Phase.RUNNING),
        (("pause", "escalate", "answered"), Phase.RUNNING),
        (("pause", "stop", "resume"), Phase.STOPPING),
        (("escalate", "park"), Phase.PARKED),
        (("stop", "finish", "pause"), Phase.FINISHED),
    ],
)
def test_the_phase_after_events(events: tuple[Event, ...], phase: Phase) -> None:
    assert _after(*events) is phase


def test_a_finish_moves_once() -> None:
    ledger = Ledger()
    assert ledger.move("finish")
    assert not ledger.move("finish")
    assert not any(ledger.move(e) for e in get_args(Event))


def test_every_event_has_a_move_and_every_phase_is_reached() -> None:
    assert set(MOVES) == set(get_args(Event))
    assert {target for _, target in MOVES.values()} | {Phase.RUNNING} == set(Phase)
