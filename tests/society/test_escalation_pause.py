"""While an escalation waits for the person, the run is paused: the loop it escalates may
go on inside a task, but nothing is dispatched and no critique or lesson is written until
the person answers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bus import Bus
from bus.payloads import Answer, Chat, Control, Presence, Question

from .conftest import ROOT, RunYaml, payloads
from .humans import Watch

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]


@pytest.fixture
async def watch(nats_url: str, run_id: str) -> AsyncIterator[Watch]:
    async with Bus(nats_url, name="test-watch") as bus:
        yield await Watch(bus, run_id).start()


async def test_an_escalation_pauses_dispatch_critiques_and_lessons_until_answered(
    run_yaml: RunYaml, run_id: str, watch: Watch
) -> None:
    text = (ROOT / "scenarios" / "failures" / "ping_pong.yaml").read_text()
    text = text.replace("replans: 2", "replans: 0")
    run = watch.during(run_yaml(text, run_id=run_id))
    await watch.wait_for("goal")
    await watch.send("human/dana", Presence(status="up", role="human"))
    asked = await watch.wait_for("question", lambda q: q.kind == "escalation")
    paused = await watch.wait_for("control", lambda c: c.action == "pause")
    assert isinstance(asked.payload, Question)
    start = watch.seen.index(paused)

    def asked_since() -> int:
        return sum(1 for e in watch.seen[start:] if _asks(e.payload))

    if asked_since() < 2:  # the loop goes on inside the researcher's task: two more asks
        await watch.wait_for("chat", lambda c: _asks(c) and asked_since() >= 2)
    before = {e.id for e in watch.seen[:start]}
    meanwhile = watch.seen[start:]
    assert not [e for e in meanwhile if e.payload.type == "task"]  # nothing dispatched
    # a critique or lesson still under way when the pause came is about what came before it
    caused = [e for e in meanwhile if e.payload.type in ("critique", "lesson")]
    assert all(e.parent_id in before for e in caused), [(e.payload, e.parent_id) for e in caused]
    reply = Answer(question_id=asked.payload.question_id, text="stop", by="dana")
    await watch.send("human/dana", reply, parent_id=asked.id)
    outcome = await asyncio.wait_for(run, 60)
    assert outcome.final is not None and outcome.final.status == "budget_exhausted"
    controls = [(c.action, c.by) for c in payloads(outcome, "control") if isinstance(c, Control)]
    assert ("pause", "manager") in controls
    critiques = payloads(outcome, "critique")
    assert len(critiques) == len({(c.detector, c.revision) for c in critiques})  # no repeats


def _asks(payload: object) -> bool:
    return isinstance(payload, Chat) and payload.intent == "question"
