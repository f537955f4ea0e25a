"""Typed bus against raw nats-py on the same embedded server, in the same run.

The server is set up as a run's own (authentication on): the typed side logs in as a role
instance with that identity's permissions and checks every envelope's subject, run and
sender on receipt (`bus.authority`); the raw side is plain nats-py logged in as the owner.
Prints publish→receive throughput and round-trip latency (p50/p99: a message answered by
a message) for typed envelopes (`bus.Bus`: make an envelope, encode, publish; decode,
validate and check on receipt) and for raw bytes of the same size, and the typed/raw
ratios, from rounds run in pairs (raw, typed, raw, typed…): median and spread.

    python bench/bus.py [--messages 100000] [--requests 3000] [--rounds 5]
    python bench/bus.py --short   # seconds: small sizes, checks that it runs

Targets (issues 2 and 15): typed throughput >= 0.6x raw; typed round trip p50 <= 1.3x raw.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import common  # before the project's packages: it drops bench/ from the path
import nats

from bus import Bus, ConnectOptions, EmbeddedServer, Envelope, encode
from bus.payloads import Chat
from bus.permissions import identity_permissions, inbox_prefix, server_config

RUN = "bench"
SUBJECT = "society.bench.chat"
PING = "society.bench.chat.ping"
PONG = "society.bench.chat.pong"
TEXT = "x" * 100
SENDER = "manager/0"
OWNER = ConnectOptions.from_url("nats://127.0.0.1", user="runner-0", password="owner-secret")
ROLE = ConnectOptions.from_url(
    "nats://127.0.0.1",
    user="manager-0",
    password="role-secret",
    inbox_prefix=inbox_prefix("manager-0"),
)


def config() -> str:
    """A run's own server: the owner, and one role instance with its identity's permissions."""
    users = [
        {"user": OWNER.user, "password": OWNER.password},
        {
            "user": ROLE.user,
            "password": ROLE.password,
            "permissions": identity_permissions(RUN, "manager", SENDER),
        },
    ]
    return server_config({}, users=users)


def role(url: str) -> ConnectOptions:
    return ConnectOptions.from_url(
        url, user=ROLE.user, password=ROLE.password, inbox_prefix=ROLE.inbox_prefix
    )


def counter(n: int) -> tuple[asyncio.Event, Callable[[object], Awaitable[None]]]:
    """A message handler, and an event it sets on the ``n``-th message it receives."""
    done = asyncio.Event()
    count = 0

    async def seen(_: object) -> None:
        nonlocal count
        count += 1
        if count == n:
            done.set()

    return done, seen


async def typed_throughput(url: str, n: int) -> float:
    sender = SENDER
    payload = Chat(text=TEXT)
    async with Bus(role(url), name="pub") as pub, Bus(role(url), name="sub") as sub:
        done, handler = counter(n)
        await sub.subscribe(SUBJECT, handler)
        await sub.flush()
        start = time.perf_counter()
        for _ in range(n):
            await pub.send(RUN, sender, payload)
        await pub.flush()
        await done.wait()
        return n / (time.perf_counter() - start)


async def raw_throughput(url: str, n: int, data: bytes, login: ConnectOptions = OWNER) -> float:
    """Raw nats-py, logged in as ``login`` (the owner: no permissions to check)."""
    pub = await nats.connect(url, user=login.user, password=login.password)
    sub = await nats.connect(url, user=login.user, password=login.password)
    done, cb = counter(n)
    await sub.subscribe(SUBJECT, cb=cb)
    await sub.flush()
    start = time.perf_counter()
    for _ in range(n):
        await pub.publish(SUBJECT, data)
    await pub.flush()
    await done.wait()
    elapsed = time.perf_counter() - start
    await pub.close()
    await sub.close()
    return n / elapsed


async def typed_rtt(url: str, n: int) -> list[float]:
    """Round trips of a typed chat answered by a typed chat (the path roles talk on)."""
    async with Bus(role(url), name="client") as client, Bus(role(url), name="server") as server:
        got: asyncio.Queue[Envelope] = asyncio.Queue()
        pong = Chat(text=TEXT, to="pong")

        async def respond(env: Envelope) -> None:
            await server.send(RUN, SENDER, pong, parent_id=env.id)

        async def back(env: Envelope) -> None:
            got.put_nowait(env)

        await server.subscribe(PING, respond)
        await client.subscribe(PONG, back)
        await server.flush()
        await client.flush()
        times = []
        ping = Chat(text=TEXT, to="ping")
        for _ in range(n):
            start = time.perf_counter()
            await client.send(RUN, SENDER, ping)
            await asyncio.wait_for(got.get(), 5)
            times.append(time.perf_counter() - start)
        return times


async def raw_rtt(url: str, n: int, data: bytes) -> list[float]:
    """Round trips of raw bytes answered by raw bytes, on the same subjects."""
    client = await nats.connect(url, user=OWNER.user, password=OWNER.password)
    server = await nats.connect(url, user=OWNER.user, password=OWNER.password)
    got: asyncio.Queue[bytes] = asyncio.Queue()

    async def respond(msg: nats.aio.msg.Msg) -> None:
        await server.publish(PONG, msg.data)

    async def back(msg: nats.aio.msg.Msg) -> None:
        got.put_nowait(msg.data)

    await server.subscribe(PING, cb=respond)
    await client.subscribe(PONG, cb=back)
    await server.flush()
    await client.flush()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await client.publish(PING, data)
        await asyncio.wait_for(got.get(), 5)
        times.append(time.perf_counter() - start)
    await client.close()
    await server.close()
    return times


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


SHORT = {"messages": 2_000, "requests": 200, "rounds": 2}
"""The sizes of ``--short`` (`common.parse`)."""


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = common.parse(parser, SHORT)
    data = encode(Envelope.new(RUN, SENDER, Chat(text=TEXT)))
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "server.json"
        conf.write_text(config())
        async with EmbeddedServer(Path(tmp) / "nats", config_file=conf) as server:
            url = server.url
            print(f"nats-server {url} (authenticated); message size {len(data)} bytes")
            typed_tp, raw_tp, same_tp, ratios, same_ratios = [], [], [], [], []
            for _ in range(args.rounds):  # in turn, so drift and load hit every side alike
                raw_tp.append(await raw_throughput(url, args.messages, data))
                typed_tp.append(await typed_throughput(url, args.messages))
                same_tp.append(await raw_throughput(url, args.messages, data, ROLE))
                ratios.append(typed_tp[-1] / raw_tp[-1])
                same_ratios.append(typed_tp[-1] / same_tp[-1])
            for name, values in (
                ("raw, owner", raw_tp),
                ("raw, role", same_tp),
                ("typed, role", typed_tp),
            ):
                print(
                    f"throughput {name:<12}: {statistics.median(values):>10,.0f} msg/s median"
                    f" (spread {min(values):,.0f}-{max(values):,.0f}, {args.rounds} rounds)"
                )
            for name, values in (("raw as the same role", same_ratios), ("raw as owner", ratios)):
                print(
                    f"throughput ratio typed/{name}: {statistics.median(values):.2f}x median"
                    f" (spread {min(values):.2f}-{max(values):.2f})  (target >= 0.60x)"
                )
            raw_t = await raw_rtt(url, args.requests, data)
            typed_t = await typed_rtt(url, args.requests)
            raw_t += await raw_rtt(url, args.requests, data)
            typed_t += await typed_rtt(url, args.requests)
            for name, ts in (("raw", raw_t), ("typed", typed_t)):
                print(
                    f"round trip {name:<5}: p50 {pct(ts, 0.5) * 1e6:7.0f} µs"
                    f"  p99 {pct(ts, 0.99) * 1e6:7.0f} µs  ({len(ts)} requests)"
                )
            ratio = statistics.median(typed_t) / statistics.median(raw_t)
            print(f"round-trip p50 ratio typed/raw: {ratio:.2f}x  (target <= 1.30x)")


if __name__ == "__main__":
    asyncio.run(main())
