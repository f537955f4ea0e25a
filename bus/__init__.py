"""The message bus: the typed protocol, subjects, the NATS connection, the embedded
server (and a local cluster of them), the JetStream run log, its work queues, and the
per-role permissions. Imports nothing from the other packages.

The names below are imported on first use (PEP 562): reading a scenario or a log file
needs the protocol's models, not the NATS client."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bus.cluster import LocalCluster as LocalCluster
    from bus.connection import Bus as Bus
    from bus.connection import BusState as BusState
    from bus.connection import ConnectOptions as ConnectOptions
    from bus.connection import Subscription as Subscription
    from bus.delivery import DeliverySettings as DeliverySettings
    from bus.envelope import ENVELOPE_ADAPTER as ENVELOPE_ADAPTER
    from bus.envelope import SCHEMA_VERSION as SCHEMA_VERSION
    from bus.envelope import Envelope as Envelope
    from bus.envelope import decode as decode
    from bus.envelope import encode as encode
    from bus.envelope import encode_new as encode_new
    from bus.envelope import new_id as new_id
    from bus.envelope import sender_name as sender_name
    from bus.errors import BusClosedError as BusClosedError
    from bus.errors import BusConnectError as BusConnectError
    from bus.errors import BusError as BusError
    from bus.errors import BusPermissionError as BusPermissionError
    from bus.errors import RunLogError as RunLogError
    from bus.errors import ServerError as ServerError
    from bus.errors import SubjectError as SubjectError
    from bus.server import EmbeddedServer as EmbeddedServer
    from bus.settling import Delivery as Delivery
    from bus.workqueue import QueueSpec as QueueSpec
    from bus.workqueue import WorkQueue as WorkQueue

_WHERE = {
    "LocalCluster": "cluster",
    "Bus": "connection",
    "BusState": "connection",
    "ConnectOptions": "connection",
    "Subscription": "connection",
    "ENVELOPE_ADAPTER": "envelope",
    "SCHEMA_VERSION": "envelope",
    "Envelope": "envelope",
    "decode": "envelope",
    "encode": "envelope",
    "encode_new": "envelope",
    "new_id": "envelope",
    "sender_name": "envelope",
    "BusClosedError": "errors",
    "BusConnectError": "errors",
    "BusError": "errors",
    "BusPermissionError": "errors",
    "RunLogError": "errors",
    "ServerError": "errors",
    "SubjectError": "errors",
    "EmbeddedServer": "server",
    "Delivery": "settling",
    "DeliverySettings": "delivery",
    "QueueSpec": "workqueue",
    "WorkQueue": "workqueue",
}


def __getattr__(name: str) -> Any:
    """Import the submodule that holds ``name`` on first use."""
    module = _WHERE.get(name)
    if module is None:
        msg = f"module 'bus' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(f"bus.{module}"), name)
    globals()[name] = value
    return value


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
