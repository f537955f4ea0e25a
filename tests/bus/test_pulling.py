"""Streaming pulls over a real nats-server: each message is handed on as it is stored (not
when its request's batch is full), what a request still owes comes back when the server
ends it, and a deleted consumer is noticed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import api
from nats.js.client import JetStreamContext

from bus.pulling import Puller

pytestmark = [pytest.mark.nats, pytest.mark.timeout(60)]


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    yield client
    await client.close()


@pytest.fixture
async def stream(nc: Client) -> AsyncIterator[str]:
    """A stream and a durable consumer of its own, named alike."""
    name = f"PULL{uuid.uuid4().hex[:8]}"
    js = nc.jetstream()
    await js.add_stream(name=name, subjects=[f"{name}.>"])
    await js.add_consumer(
        name, api.ConsumerConfig(durable_name=name, ack_policy=api.AckPolicy.EXPLICIT)
    )
    yield name
    await js.delete_stream(name)


async def request_on_server(js: JetStreamContext, stream: str, consumer: str) -> None:
    """Wait (bounded) until the server holds a pull request for ``consumer``."""
    for _ in range(400):
        if (await js.consumer_info(stream, consumer)).num_waiting:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the pull request never reached the server")


class Taker:
    """Records what a puller hands on and when a request ends."""

    def __init__(self) -> None:
        self.got: list[bytes] = []
        self.arrived = asyncio.Event()
        self.closed = asyncio.Event()

    async def on_msg(self, msg: Msg) -> None:
        self.got.append(msg.data)
        self.arrived.set()
        await msg.ack()

    def on_closed(self) -> None:
        self.closed.set()

    async def next(self) -> None:
        await asyncio.wait_for(self.arrived.wait(), 20)
        self.arrived.clear()


async def pulling(
    nc: Client, stream: str, *, expires_s: float = 60, least: int = 1
) -> tuple[Taker, Puller]:
    """A started puller on ``stream``'s consumer (named alike), and what it hands on."""
    taker = Taker()
    puller = Puller(
        nc, stream, stream, taker.on_msg, taker.on_closed, expires_s=expires_s, least=least
    )
    await puller.start()
    return taker, puller


async def test_each_message_is_handed_on_as_it_is_stored(nc: Client, stream: str) -> None:
    taker, puller = await pulling(nc, stream)
    await puller.ask(10)
    assert puller.owed == 10
    js = nc.jetstream()
    for n in range(3):
        await js.publish(f"{stream}.x", str(n).encode())
        await taker.next()  # a fetch of 10 would still be waiting for the other 9
    assert taker.got == [b"0", b"1", b"2"]
    assert puller.owed == 7
    await puller.ask(10)
    assert puller.owed == 10
    await puller.stop()


async def test_a_request_that_expires_gives_back_what_it_owed(nc: Client, stream: str) -> None:
    taker, puller = await pulling(nc, stream, expires_s=0.5)
    await nc.jetstream().publish(f"{stream}.x", b"one")
    await puller.ask(5)
    await taker.next()
    await asyncio.wait_for(taker.closed.wait(), 20)  # the server's 408 for the other 4
    assert puller.owed == 0
    assert puller.doubt is None  # an expiry is routine
    taker.closed.clear()
    await puller.ask(5)
    await nc.jetstream().publish(f"{stream}.x", b"two")
    await taker.next()
    assert taker.got == [b"one", b"two"]
    await puller.stop()


async def test_few_more_slots_wait_for_a_worthwhile_request(nc: Client, stream: str) -> None:
    taker, puller = await pulling(nc, stream, least=4)
    await puller.ask(8)
    await nc.jetstream().publish(f"{stream}.x", b"one")
    await taker.next()
    await puller.ask(8)  # one slot more than is asked for: not worth a request
    assert puller.owed == 7
    await puller.stop()


async def test_a_deleted_consumer_ends_its_requests_with_a_doubt(nc: Client, stream: str) -> None:
    taker, puller = await pulling(nc, stream)
    await puller.ask(5)
    js = nc.jetstream()
    await request_on_server(js, stream, stream)
    await js.delete_consumer(stream, stream)
    await asyncio.wait_for(taker.closed.wait(), 20)
    assert puller.owed == 0
    assert puller.doubt is not None
    assert "deleted" in puller.doubt.lower()
    await puller.stop()


async def test_a_stopped_puller_does_not_capture_the_next_message(
    nc: Client, stream: str, nats_url: str
) -> None:
    gone, puller = await pulling(nc, stream)
    await puller.ask(5)
    js = nc.jetstream()
    await request_on_server(js, stream, stream)
    await puller.stop()  # its request stays open on the server for a minute
    await js.publish(f"{stream}.x", b"next")
    other = await nats.connect(nats_url)
    try:
        taker, successor = await pulling(other, stream)
        await successor.ask(1)
        await taker.next()  # not held by the stopped puller's request until it expires
        assert taker.got == [b"next"] and gone.got == []
        await successor.stop()
    finally:
        await other.close()


async def test_a_request_beyond_the_consumers_waiting_limit_is_a_setback(nc: Client) -> None:
    name = f"PULL{uuid.uuid4().hex[:8]}"
    js = nc.jetstream()
    await js.add_stream(name=name, subjects=[f"{name}.>"])
    config = api.ConsumerConfig(durable_name=name, ack_policy=api.AckPolicy.EXPLICIT, max_waiting=1)
    await js.add_consumer(name, config)
    try:
        taker, puller = await pulling(nc, name)
        await puller.ask(1)
        await request_on_server(js, name, name)
        await puller.ask(3)  # a second request: one more than the consumer lets wait
        await asyncio.wait_for(taker.closed.wait(), 20)
        assert puller.setback is not None and "409" in puller.setback
        assert puller.doubt is None  # the consumer is there
        assert puller.owed == 1  # the refused request owes nothing; the first still does
        await puller.stop()
    finally:
        await js.delete_stream(name)
