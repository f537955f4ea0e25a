"""`Bus`: a typed NATS connection (async context manager) that speaks envelopes.

One `Bus` is one NATS connection; every role instance opens its own, as if it ran on
another machine. Messages that fail validation never reach a handler nor kill a
subscription: they are republished as `DeadLetter` envelopes and logged.

A *durable* bus (roles use one) stores the payloads that change a run's state (``DURABLE``
in `bus.payloads`) through JetStream, waiting for the stream's ack and retrying across
reconnects with the envelope id as ``Nats-Msg-Id`` (stored once); the rest is a plain
publish. Refusals are logged, and a refused durable publish raises `BusPermissionError`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from enum import Enum
from typing import Any

import nats
import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription as _NatsSubscription
from nats.js.client import JetStreamContext
from pydantic import ValidationError

from bus import bodies, subjects, taps
from bus.authority import misfit
from bus.deadletters import dead_letter, short_error
from bus.envelope import Envelope, encode, encode_new, subject_for, subject_of
from bus.errors import (
    BusClosedError,
    BusConnectError,
    BusError,
)
from bus.options import ConnectOptions
from bus.payloads import Payload
from bus.refusals import Refusals
from bus.storing import stored

__all__ = ["Bus", "BusState", "ConnectOptions", "Handler", "Subscription"]

log = structlog.get_logger("bus")
_validate_json = Envelope.__pydantic_validator__.validate_json

Handler = Callable[[Envelope], Awaitable[None]]


class BusState(Enum):
    """Lifecycle of a `Bus`."""

    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


class Subscription:
    """A live subscription; `unsubscribe` is idempotent."""

    def __init__(self, sub: _NatsSubscription, pattern: str) -> None:
        self._sub = sub
        self.pattern = pattern
        self._active = True

    async def unsubscribe(self) -> None:
        """Stop receiving (ignores a connection that is already gone)."""
        if not self._active:
            return
        self._active = False
        with contextlib.suppress(
            nats.errors.ConnectionClosedError, nats.errors.BadSubscriptionError
        ):
            await self._sub.unsubscribe()


class Bus:
    """A typed connection to NATS. ``async with Bus(...) as bus:`` connects and closes."""

    def __init__(
        self,
        options: ConnectOptions | str,
        *,
        name: str = "society",
        durable: bool = False,
        reports: bool = True,
    ) -> None:
        self.options = ConnectOptions.from_url(options) if isinstance(options, str) else options
        self.name = name
        self.durable = durable
        """Store state-changing payloads through JetStream before going on (needs the run log)."""
        self.reports = reports
        """Publish what this connection refuses as a `DeadLetter`. One receiver per run does
        (the runner, which hears everything), so a bad message is reported once, not once
        per role; the others drop it quietly."""
        self.state = BusState.NEW
        self._nc: Client | None = None
        self._js: JetStreamContext | None = None
        self._dead_letters = 0
        self._last_error = ""
        self._refusals = Refusals(name)
        self._reconnect_callbacks: list[Callable[[], Coroutine[Any, Any, None]]] = []
        self._background: set[asyncio.Task[None]] = set()

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> Bus:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connect to the first server that answers; raise `BusConnectError` if none does."""
        if self.state is not BusState.NEW:
            msg = f"bus {self.name!r} is {self.state.value}; make a new Bus to reconnect"
            raise BusError(msg)
        opts = self.options
        url = ",".join(opts.servers)
        # nats-py retries some failures (a TLS handshake refused) forever: bound it.
        bound = opts.connect_timeout * (len(opts.servers) + 1)
        try:
            async with asyncio.timeout(bound):
                self._nc = await self._open()
        except TimeoutError as exc:
            why = self._last_error or f"no answer within {bound:g}s"
            raise BusConnectError(url, why, opts.user) from exc
        except (OSError, nats.errors.Error) as exc:  # the server's own reason says more
            why = self._last_error or str(exc) or type(exc).__name__
            raise BusConnectError(url, why, opts.user) from exc
        self._nc.options["max_reconnect_attempts"] = -1
        self._js = self._nc.jetstream()
        self.state = BusState.OPEN

    async def _open(self) -> Client:
        opts = self.options
        return await nats.connect(
            servers=list(opts.servers),
            name=self.name,
            user=opts.user,
            password=opts.password,
            token=opts.token,
            tls=opts.ssl_context(),
            connect_timeout=int(max(1, opts.connect_timeout)),
            allow_reconnect=True,
            # Bounded for the first connect (nats-py retries it forever otherwise);
            # unbounded once connected, so a server restart is ridden out.
            max_reconnect_attempts=1,
            reconnect_time_wait=0.25,
            inbox_prefix=opts.inbox_prefix,
            # Our subjects are validated when built (bus.subjects); skip nats-py's regex.
            skip_subject_validation=True,
            error_cb=self._on_error,
            disconnected_cb=self._on_disconnect,
            reconnected_cb=self._on_reconnect,
            **opts.extra,
        )

    async def close(self) -> None:
        """Flush and close; safe to call twice."""
        if self.state is not BusState.OPEN or self._nc is None:
            self.state = BusState.CLOSED
            return
        self.state = BusState.CLOSED
        with contextlib.suppress(TimeoutError, nats.errors.Error, OSError):
            await asyncio.wait_for(self._nc.drain(), timeout=5)
        if not self._nc.is_closed:
            with contextlib.suppress(TimeoutError, nats.errors.Error, OSError):  # server gone
                await self._nc.close()

    @property
    def nc(self) -> Client:
        """The underlying nats-py client (for bus-internal modules only)."""
        if self.state is not BusState.OPEN or self._nc is None:
            msg = f"bus {self.name!r} is {self.state.value}, not open"
            raise BusClosedError(msg)
        return self._nc

    @property
    def js(self) -> JetStreamContext:
        """The JetStream context of this connection (for bus-internal modules only)."""
        if self.state is not BusState.OPEN or self._js is None:
            msg = f"bus {self.name!r} is {self.state.value}, not open"
            raise BusClosedError(msg)
        return self._js

    @property
    def connected_url(self) -> str:
        """The server this connection is attached to right now."""
        url = self.nc.connected_url
        return "" if url is None else url.geturl()

    @property
    def is_connected(self) -> bool:
        """Whether the server is reachable right now (False while reconnecting, or closed)."""
        return self.state is BusState.OPEN and self._nc is not None and self._nc.is_connected

    @property
    def refusals(self) -> collections.deque[tuple[str, str]]:
        """(operation, subject) of the latest publishes and subscribes the server refused
        (the subject lowercased: that is how nats-py reports it)."""
        return self._refusals.latest

    @property
    def sender(self) -> str:
        """``bus/<name>``: the sender of what the bus itself publishes (dead letters)."""
        return "bus/" + subjects.safe_token(self.name, fill="_")

    @property
    def dead_letters(self) -> int:
        """How many messages this connection has refused (malformed or misplaced)."""
        return self._dead_letters

    # -- publishing -------------------------------------------------------------------

    async def publish(self, envelope: Envelope, subject: str | None = None) -> None:
        """Publish an envelope on its derived subject (or an explicit one)."""
        subj = subject or subject_for(envelope)
        taps.sent(envelope)
        if self.durable and envelope.payload.DURABLE:
            await self.store(subj, encode(envelope), envelope.id)
            return
        await self._publish(subj, encode(envelope), envelope.id)

    async def send(
        self,
        run_id: str,
        sender: str,
        payload: Payload,
        *,
        parent_id: str | None = None,
        task_id: str | None = None,
        subject: str | None = None,
    ) -> str:
        """Publish a new envelope around ``payload`` (the lean path); returns its id."""
        mid, data = encode_new(run_id, sender, payload, parent_id, task_id)
        subj = subject or subject_of(run_id, payload, sender)
        taps.sent_bytes(data)
        if self.durable and payload.DURABLE:
            await self.store(subj, data, mid)
            return mid
        await self._publish(subj, data, mid)
        return mid

    async def _publish(self, subject: str, data: bytes, msg_id: str) -> None:
        """Core publish (a body too large for one message goes by reference)."""
        data, headers = await bodies.by_reference(self.nc, data, msg_id)
        try:
            await self.nc.publish(subject, data, headers=headers)
        except nats.errors.Error as exc:
            msg = f"publish failed: {exc}"
            raise BusError(msg) from exc

    async def store(self, subject: str, data: bytes, msg_id: str) -> None:
        """Publish through JetStream and wait until a stream holds the message.

        Retries (same ``Nats-Msg-Id``, so the stream keeps one copy) while the server is
        unreachable or its stream is not back yet, for up to ``publish_timeout_s``.
        Raises `BusPermissionError` at once when the server refuses the subject.
        """
        data, body = await bodies.by_reference(self.nc, data, msg_id)
        headers = {"Nats-Msg-Id": msg_id, **(body or {})}
        await stored(
            self.js,
            self._refusals,
            subject,
            data,
            headers,
            bus=self.name,
            within_s=self.options.publish_timeout_s,
        )

    async def publish_raw(self, subject: str, data: bytes) -> None:
        """Publish bytes as they are (tests and tools; roles publish envelopes)."""
        try:
            await self.nc.publish(subject, data)
        except nats.errors.Error as exc:
            msg = f"publish failed: {exc}"
            raise BusError(msg) from exc

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until the server has everything published so far."""
        try:
            await self.nc.flush(timeout=int(max(1, timeout)))
        except (TimeoutError, nats.errors.Error) as exc:
            msg = f"flush failed: {exc}"
            raise BusError(msg) from exc

    # -- subscribing ------------------------------------------------------------------

    async def subscribe(
        self, pattern: str, handler: Handler, *, queue: str | None = None
    ) -> Subscription:
        """Deliver each valid envelope on ``pattern`` to ``handler``, in order.

        With ``queue``, subscribers sharing the group name share the messages.
        A handler that raises is logged; the subscription keeps going.
        """

        async def on_msg(msg: Msg) -> None:
            try:
                envelope = _validate_json(await bodies.body_of(self.nc, msg))
            except BusError as exc:
                self.refuse(msg, str(exc))
                return
            except ValidationError as exc:
                self.refuse(msg, short_error(exc))
                return
            why = misfit(msg.subject, envelope)
            if why is not None:
                self.refuse(msg, why)
                return
            taps.delivered(envelope)
            try:
                await handler(envelope)
            except Exception:
                log.exception("handler failed", bus=self.name, subject=msg.subject)

        return await self._subscribe(pattern, on_msg, queue)

    async def subscribe_raw(
        self, pattern: str, handler: Callable[[bytes], Awaitable[None]]
    ) -> Subscription:
        """Deliver the bytes of each message on ``pattern`` (signals outside the run log)."""

        async def on_msg(msg: Msg) -> None:
            await handler(msg.data)

        return await self._subscribe(pattern, on_msg, None)

    async def _subscribe(
        self, pattern: str, cb: Callable[[Msg], Awaitable[None]], queue: str | None
    ) -> Subscription:
        try:
            sub = await self.nc.subscribe(pattern, queue=queue or "", cb=cb)
        except nats.errors.Error as exc:
            msg = f"subscribe to {pattern} failed: {exc}"
            raise BusError(msg) from exc
        return Subscription(sub, pattern)

    # -- malformed messages --------------------------------------------------------------

    def refuse(self, msg: Msg, error: str) -> None:
        """Drop a message that is not a valid envelope, or not one that may be on its
        subject; a reporting bus dead-letters it (never a dead letter itself)."""
        self._dead_letters += 1
        if not self.reports:
            log.debug("dropped a message", bus=self.name, subject=msg.subject, error=error)
        elif not msg.subject.endswith("." + subjects.Channel.DEAD_LETTER.value):
            self._dead_letter(msg.subject, msg.data, error)

    def _dead_letter(self, subject: str, data: bytes, error: str) -> None:
        log.warning("dead-lettered a message", bus=self.name, subject=subject, error=error)
        letter = dead_letter(subject, data, error, sender=self.sender, receiver=self.name)
        task = asyncio.get_running_loop().create_task(self.publish(letter))
        task.add_done_callback(_log_task_error)

    # -- connection events ------------------------------------------------------------------

    def on_reconnect(self, callback: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``callback`` (in the background) each time the connection comes back."""
        self._reconnect_callbacks.append(callback)

    async def _on_error(self, exc: Exception) -> None:
        text = str(exc) or type(exc).__name__
        # The server's reason ("Authorization Violation") beats the reset that follows it.
        if not (isinstance(exc, OSError) and self._last_error):
            self._last_error = text
        if not self._refusals.note(text):
            log.debug("nats error", bus=self.name, error=text)

    async def _on_disconnect(self) -> None:
        if self.state is BusState.OPEN:
            log.info("disconnected from NATS; reconnecting", bus=self.name)

    async def _on_reconnect(self) -> None:
        log.info("reconnected to NATS", bus=self.name, url=self.connected_url)
        for callback in self._reconnect_callbacks:
            task = asyncio.get_running_loop().create_task(callback())
            self._background.add(task)
            task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("reconnect callback failed", bus=self.name, error=repr(task.exception()))


def _log_task_error(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("could not publish a dead letter", error=str(task.exception()))
