"""Messages larger than the server takes in one go (a 10,000-task plan, the scenario in a
goal) travel by reference: the envelope's bytes go to JetStream's object store (bucket
``society_bodies``, named by the envelope id) and the message itself is empty, with a
``Society-Body`` header naming the object and its SHA-256. Receivers fetch the body and
check the digest, so an object overwritten by someone else is refused, never believed.
"""

from __future__ import annotations

import contextlib
import hashlib

import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import api
from nats.js.api import RawStreamMsg

from bus.errors import BusError

__all__ = ["BUCKET", "HEADER", "body_of", "by_reference", "ensure_bucket", "stream_name"]

BUCKET = "society_bodies"
HEADER = "Society-Body"
HEADROOM = 16 * 1024
"""Bytes kept free under the server's limit for headers and the protocol."""


def stream_name() -> str:
    """The stream JetStream keeps the bucket in."""
    return f"OBJ_{BUCKET}"


async def ensure_bucket(nc: Client, *, replicas: int = 1) -> None:
    """Create the bucket if it is not there (the runner, before the run starts)."""
    js = nc.jetstream(timeout=30.0)
    try:
        await js.object_store(BUCKET)
    except nats.js.errors.NotFoundError:
        with contextlib.suppress(nats.js.errors.BadRequestError):  # made meanwhile elsewhere
            await js.create_object_store(
                BUCKET,
                config=api.ObjectStoreConfig(
                    description="bodies of society messages too large for one NATS message",
                    replicas=replicas,
                ),
            )
    except nats.errors.Error as exc:
        msg = f"cannot reach the message body store {BUCKET}: {exc}"
        raise BusError(msg) from exc


async def by_reference(nc: Client, data: bytes, name: str) -> tuple[bytes, dict[str, str] | None]:
    """``data`` as it is when the server takes it in one message; else stored as ``name``
    and replaced by an empty message with its reference header."""
    if len(data) <= nc.max_payload - HEADROOM:
        return data, None
    digest = hashlib.sha256(data).hexdigest()
    try:
        store = await nc.jetstream(timeout=30.0).object_store(BUCKET)
        await store.put(name, data)
    except nats.errors.Error as exc:
        msg = (
            f"a {len(data) / 1e6:.1f} MB message needs the body store {BUCKET} "
            f"(the server takes {nc.max_payload / 1e6:.1f} MB at most): {exc}"
        )
        raise BusError(msg) from exc
    return b"", {HEADER: f"{name} {digest}"}


async def body_of(nc: Client, msg: Msg | RawStreamMsg) -> bytes:
    """The message's envelope bytes: its data, or the body its header names (checked)."""
    reference = (msg.headers or {}).get(HEADER)
    if reference is None:
        return msg.data or b""
    name, _, digest = reference.partition(" ")
    try:
        store = await nc.jetstream(timeout=30.0).object_store(BUCKET)
        data = (await store.get(name)).data or b""
    except nats.errors.Error as exc:
        msg_0 = f"the body {name} of a message on {msg.subject} cannot be read: {exc!r}"
        raise BusError(msg_0) from exc
    if hashlib.sha256(data).hexdigest() != digest:
        msg_1 = f"the body {name} of a message on {msg.subject} is not the one it was sent with"
        raise BusError(msg_1)
    return bytes(data)
