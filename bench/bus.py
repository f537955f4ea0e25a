"""Typed bus against raw nats-py on the same embedded server, in the same run.

Prints publish→receive throughput and round-trip latency (p50/p99: a message answered by a message) for typed envelopes
(`bus.Bus`: make an envelope, encode, publish; decode and validate on receipt) and for
raw nats-py with bytes of the same size, and the typed/raw ratios.

    python bench/bus.py [--messages 100000] [--requests 3000]

Targets (issue 2): typed throughput >= 0.6x raw; typed round trip p50 <= 1.3x raw.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

# This file's name shadows the `bus` package when run as a script: drop bench/ from the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import nats  # noqa: E402

from bus import Bus, EmbeddedServer, Envelope, encode  # noqa: E402
from bus.payloads import Chat  # noqa: E402

RUN = "bench"
SUBJECT = "society.bench.chat"
PING = "society.bench.chat.ping"
PONG = "society.bench.chat.pong"
TEXT = "x" * 100


async def typed_throughput(url: str, n: int) -> float:
    sender = "bench/0"
    payload = Chat(text=TEXT)
    async with Bus(url, name="pub") as pub, Bus(url, name="sub") as sub:
        done = asyncio.Event()
        count = 0

        async def handler(env: Envelope) -> None:
            nonlocal count
            count += 1
            if count == n:
                done.set()

        await sub.subscribe(SUBJECT, handler)
        await sub.flush()
        start = time.perf_counter()
        for _ in range(n):
            await pub.send(RUN, sender, payload, subject=SUBJECT)
        await pub.flush()
        await done.wait()
        return n / (time.perf_counter() - start)


async def raw_throughput(url: str, n: int, data: bytes) -> float:
    pub = await nats.connect(url)
    sub = await nats.connect(url)
    done = asyncio.Event()
    count = 0

    async def cb(msg: object) -> None:
        nonlocal count
        count += 1
        if count == n:
            done.set()

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
    async with Bus(url, name="client") as client, Bus(url, name="server") as server:
        got: asyncio.Queue[Envelope] = asyncio.Queue()

        async def respond(env: Envelope) -> None:
            await server.send(RUN, "echo/0", env.payload, subject=PONG, parent_id=env.id)

        async def back(env: Envelope) -> None:
            got.put_nowait(env)

        await server.subscribe(PING, respond)
        await client.subscribe(PONG, back)
        await server.flush()
        await client.flush()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            await client.send(RUN, "bench/0", Chat(text=TEXT), subject=PING)
            await asyncio.wait_for(got.get(), 5)
            times.append(time.perf_counter() - start)
        return times


async def raw_rtt(url: str, n: int, data: bytes) -> list[float]:
    """Round trips of raw bytes answered by raw bytes, on the same subjects."""
    client = await nats.connect(url)
    server = await nats.connect(url)
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = encode(Envelope.new(RUN, "bench/0", Chat(text=TEXT)))
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedServer(Path(tmp)) as server:
            url = server.url
            print(f"nats-server {url}; message size {len(data)} bytes")
            typed_tp, raw_tp = [], []
            for _ in range(args.rounds):  # interleave to share any drift fairly
                raw_tp.append(await raw_throughput(url, args.messages, data))
                typed_tp.append(await typed_throughput(url, args.messages))
            raw_best, typed_best = max(raw_tp), max(typed_tp)
            print(f"throughput raw   : {raw_best:>10,.0f} msg/s (best of {args.rounds})")
            print(f"throughput typed : {typed_best:>10,.0f} msg/s (best of {args.rounds})")
            print(f"throughput ratio typed/raw: {typed_best / raw_best:.2f}x  (target >= 0.60x)")
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
