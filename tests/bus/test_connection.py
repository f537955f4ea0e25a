"""The typed bus against a real nats-server."""

from __future__ import annotations

import asyncio

import nats
import pytest

from bus import Bus, BusConnectError, Envelope, subjects
from bus.payloads import Chat, DeadLetter, Goal
from bus.subjects import Channel

from .live import until_live
from .samples import SAMPLES, sender_for

pytestmark = pytest.mark.nats


async def collect_until(
    bus: Bus, pattern: str, n: int, **kw: object
) -> tuple[list[Envelope], asyncio.Event]:
    got: list[Envelope] = []
    done = asyncio.Event()

    async def handler(env: Envelope) -> None:
        got.append(env)
        if len(got) >= n:
            done.set()

    await bus.subscribe(pattern, handler, **kw)  # type: ignore[arg-type]
    await bus.flush()
    return got, done


async def test_every_payload_round_trips_over_nats(nats_url: str, run_id: str) -> None:
    async with Bus(nats_url, name="pub") as pub, Bus(nats_url, name="sub") as sub:
        got: list[Envelope] = []
        done = asyncio.Event()

        async def handler(env: Envelope) -> None:
            got.append(env)
            if len(got) >= len(SAMPLES):
                done.set()

        await sub.subscribe(subjects.run_wildcard(run_id), handler)
        await sub.flush()
        await until_live(pub, sub)
        sent = []
        for payload in SAMPLES:
            env = Envelope.new(run_id, sender_for(payload), payload, parent_id="p", task_id="t1")
            sent.append(env)
            await pub.publish(env)
        await asyncio.wait_for(done.wait(), 10)
        assert sorted(got, key=lambda e: e.id) == sent


async def test_send_returns_the_id_of_what_arrives(nats_url: str, run_id: str) -> None:
    async with Bus(nats_url, name="pub") as pub, Bus(nats_url, name="sub") as sub:
        got, done = await collect_until(sub, subjects.subject(run_id, Channel.GOAL), 1)
        await until_live(pub, sub)
        mid = await pub.send(run_id, "manager/0", Goal(text="g"), parent_id="x", task_id="t")
        await asyncio.wait_for(done.wait(), 10)
        assert got[0].id == mid and got[0].parent_id == "x" and got[0].payload == Goal(text="g")


async def test_wildcards_deliver_only_matching(nats_url: str, run_id: str) -> None:
    async with Bus(nats_url, name="pub") as pub, Bus(nats_url, name="sub") as sub:
        got, done = await collect_until(sub, subjects.run_wildcard(run_id, Channel.CHAT), 2)
        await until_live(pub, sub)
        await pub.send(run_id, "a/0", Chat(text="to coder", to="coder"))
        await pub.send(
            run_id, "a/0", Chat(text="to all")
        )  # society.<run>.chat: not matched by chat.*
        await pub.send(f"{run_id}x", "a/0", Chat(text="other run", to="coder"))
        await pub.send(run_id, "a/0", Chat(text="to planner", to="planner"))
        await asyncio.wait_for(done.wait(), 10)
        await sub.flush()
        assert [e.payload.text for e in got] == ["to coder", "to planner"]  # type: ignore[union-attr]


async def test_queue_group_shares_without_loss_or_duplicates(nats_url: str, run_id: str) -> None:
    n = 200
    subject = subjects.subject(run_id, Channel.CHAT, "coder")
    barrier = subjects.subject(run_id, Channel.CHAT, "planner")
    async with (
        Bus(nats_url, name="pub") as pub,
        Bus(nats_url, name="w1") as w1,
        Bus(nats_url, name="w2") as w2,
    ):
        received: dict[str, list[str]] = {"w1": [], "w2": []}
        total = asyncio.Event()
        barriers = {"w1": asyncio.Event(), "w2": asyncio.Event()}
        for name, bus in (("w1", w1), ("w2", w2)):

            async def work(env: Envelope, name: str = name) -> None:
                received[name].append(env.id)
                if sum(map(len, received.values())) >= n:
                    total.set()

            async def seen_barrier(env: Envelope, name: str = name) -> None:
                barriers[name].set()

            await bus.subscribe(subject, work, queue="coder")
            await bus.subscribe(barrier, seen_barrier)
            await bus.flush()
        await until_live(pub, w1, w2)
        ids = [await pub.send(run_id, "m/0", Chat(text=str(i), to="coder")) for i in range(n)]
        await asyncio.wait_for(total.wait(), 10)
        await pub.send(run_id, "m/0", Chat(text="barrier", to="planner"))
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in barriers.values())), 10)
        all_ids = received["w1"] + received["w2"]
        assert sorted(all_ids) == sorted(ids)  # none lost, none doubled
        assert received["w1"] and received["w2"]  # shared (p of failing: 2**-199)


async def test_malformed_message_is_dead_lettered_and_subscriber_survives(
    nats_url: str, run_id: str
) -> None:
    chat = subjects.subject(run_id, Channel.CHAT, "coder")
    async with Bus(nats_url, name="sub") as sub, Bus(nats_url, name="watch") as watch:
        letters, lettered = await collect_until(
            watch, subjects.subject(run_id, Channel.DEAD_LETTER), 1
        )
        got, done = await collect_until(sub, chat, 1)
        async with Bus(nats_url, name="pub") as pub:
            await until_live(pub, sub, watch)
        raw = await nats.connect(nats_url)  # a plain nats-py client, not our Bus
        try:
            await raw.publish(chat, b'{"type": "chat", "text": "not an envelope"}')
            await raw.publish(chat, b"\xff\xfe garbage")
            await raw.flush()
        finally:
            await raw.close()
        await asyncio.wait_for(lettered.wait(), 10)
        letter = letters[0].payload
        assert isinstance(letter, DeadLetter)
        assert letter.subject == chat and letter.receiver == "sub"
        assert "not an envelope" in letter.raw and "Field required" in letter.error
        # the subscriber is still alive and typed messages still reach it
        async with Bus(nats_url, name="pub") as pub:
            await until_live(pub, sub)
            await pub.send(run_id, "a/0", Chat(text="still here", to="coder"))
        await asyncio.wait_for(done.wait(), 10)
        assert got[0].payload == Chat(text="still here", to="coder")
        assert sub.dead_letters == 2


async def test_handler_exception_does_not_kill_subscription(nats_url: str, run_id: str) -> None:
    subject = subjects.subject(run_id, Channel.CHAT, "x")
    seen: list[str] = []
    done = asyncio.Event()
    async with Bus(nats_url, name="sub") as sub, Bus(nats_url, name="pub") as pub:

        async def handler(env: Envelope) -> None:
            assert isinstance(env.payload, Chat)
            seen.append(env.payload.text)
            if env.payload.text == "boom":
                raise RuntimeError("handler bug")
            done.set()

        await sub.subscribe(subject, handler)
        await sub.flush()
        await until_live(pub, sub)
        await pub.send(run_id, "a/0", Chat(text="boom", to="x"))
        await pub.send(run_id, "a/0", Chat(text="after", to="x"))
        await asyncio.wait_for(done.wait(), 10)
    assert seen == ["boom", "after"]


async def test_connect_error_names_the_url() -> None:
    from bus.server import free_port

    url = f"nats://127.0.0.1:{free_port()}"
    bus = Bus(url, name="nobody")
    with pytest.raises(BusConnectError) as info:
        await bus.connect()
    assert url in str(info.value)
