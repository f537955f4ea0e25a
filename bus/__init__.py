"""The message bus: the typed protocol, subjects, the NATS connection, the embedded
server (and a local cluster of them), the JetStream run log, its work queues, and the
per-role permissions. Imports nothing from the other packages."""

from bus.cluster import LocalCluster
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
    BusPermissionError,
    RunLogError,
    ServerError,
    SubjectError,
)
from bus.server import EmbeddedServer
from bus.workqueue import Delivery, DeliverySettings, QueueSpec, WorkQueue

__all__ = [
    "ENVELOPE_ADAPTER",
    "SCHEMA_VERSION",
    "Bus",
    "BusClosedError",
    "BusConnectError",
    "BusError",
    "BusPermissionError",
    "BusState",
    "ConnectOptions",
    "Delivery",
    "DeliverySettings",
    "EmbeddedServer",
    "Envelope",
    "LocalCluster",
    "QueueSpec",
    "RunLogError",
    "ServerError",
    "SubjectError",
    "Subscription",
    "WorkQueue",
    "decode",
    "encode",
    "encode_new",
    "new_id",
    "sender_name",
]
