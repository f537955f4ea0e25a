"""The message bus: the typed protocol, subjects, the NATS connection, the embedded
server and the JetStream run log. Imports nothing from the other packages."""

from bus.connection import Bus, BusState, ConnectOptions, Subscription
from bus.envelope import (
    ENVELOPE_ADAPTER,
    SCHEMA_VERSION,
    Envelope,
    decode,
    encode,
    encode_new,
    new_id,
    sender_name,
)
from bus.errors import (
    BusClosedError,
    BusConnectError,
    BusError,
    BusTimeoutError,
    RunLogError,
    ServerError,
    SubjectError,
)
from bus.server import EmbeddedServer

__all__ = [
    "ENVELOPE_ADAPTER",
    "SCHEMA_VERSION",
    "Bus",
    "BusClosedError",
    "BusConnectError",
    "BusError",
    "BusState",
    "BusTimeoutError",
    "ConnectOptions",
    "EmbeddedServer",
    "Envelope",
    "RunLogError",
    "ServerError",
    "SubjectError",
    "Subscription",
    "decode",
    "encode",
    "encode_new",
    "new_id",
    "sender_name",
]
