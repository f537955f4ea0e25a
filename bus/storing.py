"""Storing one message through JetStream: publish, wait for the stream's ack, and retry
(same ``Nats-Msg-Id``, so the stream keeps one copy) while the server or its stream is
coming back; a subject the server refuses fails at once."""

from __future__ import annotations

import asyncio
from typing import Any

import nats.errors
import nats.js.errors
import structlog
from nats.js.client import JetStreamContext

from bus.errors import BusClosedError, BusError, BusPermissionError
from bus.refusals import Refusals

__all__ = ["stored"]

log = structlog.get_logger("bus")


async def stored(
    js: JetStreamContext,
    refusals: Refusals,
    subject: str,
    data: bytes,
    headers: dict[str, str],
    *,
    bus: str,
    within_s: float,
) -> None:
    """Publish ``data`` on ``subject`` and return once a stream holds it.

    Retries while the server is unreachable or its stream is not back yet, for up to
    ``within_s``. Raises `BusPermissionError` at once when the server refuses the subject,
    `BusClosedError` when the connection closes, `BusError` when time is up.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    refused = refusals.watch(subject)
    delay = 0.05
    try:
        while True:
            left = deadline - loop.time()
            attempt = asyncio.ensure_future(
                js.publish(subject, data, timeout=max(0.1, min(2.0, left)), headers=headers)
            )
            either: set[asyncio.Future[Any]] = {attempt, refused}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if refused.done():
                attempt.cancel()
                operation = "publishing to"
                raise BusPermissionError(operation, subject, bus)
            try:
                attempt.result()
                return
            except nats.errors.ConnectionClosedError as exc:
                msg = f"bus {bus!r} closed while storing on {subject}"
                raise BusClosedError(msg) from exc
            except (nats.errors.TimeoutError, nats.js.errors.NoStreamResponseError) as exc:
                if delay == 0.05:
                    log.info("not stored yet; retrying", bus=bus, subject=subject)
                if loop.time() + delay >= deadline:
                    msg = (
                        f"no JetStream stream stored {subject} within {within_s:g}s ({exc}); "
                        "is the run log there?"
                    )
                    raise BusError(msg) from exc
            except nats.js.errors.ServiceUnavailableError:
                pass  # JetStream is recovering (restart, leader election): try again
            except nats.errors.Error as exc:
                msg = f"storing on {subject} failed: {exc}"
                raise BusError(msg) from exc
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)
    finally:
        refusals.forget(subject, refused)
