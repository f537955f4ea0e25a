"""Wait until core subscriptions are live for another connection, by evidence rather than time.

A core-NATS subscription may miss messages from other connections for a moment after
`subscribe` + `flush` returns; a probe subscribed after it, on the same connection, that
the publisher's messages reach shows the earlier subscriptions are live too.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

from nats.aio.msg import Msg

from bus import Bus


async def until_live(pub: Bus, *subs: Bus, tries: int = 200) -> None:
    """Return once a probe from `pub` reaches every bus in `subs`."""
    for sub in subs:
        subject = f"_probe.{uuid.uuid4().hex}"
        seen = asyncio.Event()

        async def on_probe(msg: Msg, seen: asyncio.Event = seen) -> None:
            seen.set()

        probe = await sub.nc.subscribe(subject, cb=on_probe)
        await sub.nc.flush()
        try:
            for _ in range(tries):
                await pub.nc.publish(subject, b"")
                await pub.nc.flush()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(seen.wait(), 0.1)
                    break
            else:
                raise TimeoutError(f"{sub.sender}'s subscriptions never became live")
        finally:
            await probe.unsubscribe()


async def refused(bus: Bus, check: Callable[[str], bool], timeout: float = 30.0) -> None:
    """Until the server has refused ``bus`` a subject that ``check`` accepts (lowercased).
    nats-py reports refusals only to its error callback, so this polls the bus's record."""
    async with asyncio.timeout(timeout):
        while not any(check(subject) for _, subject in bus.refusals):
            await bus.flush()
            await asyncio.sleep(0.05)
