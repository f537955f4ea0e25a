"""How a run's work queues hand out work: a scenario's ``delivery`` section, kept apart from
the queues themselves so reading a scenario does not import the NATS client."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DeliverySettings"]


class DeliverySettings(BaseModel):
    """How work is handed out and taken back (a scenario's ``delivery`` section)."""

    model_config = ConfigDict(extra="forbid")

    ack_wait_s: float = Field(default=30.0, gt=0)
    """Seconds without a heartbeat after which a task goes to another worker."""
    max_deliveries: int = Field(default=3, ge=1, le=100)
    """Deliveries of one task before it is dead-lettered and failed."""
    poll_s: float = Field(default=5.0, gt=0)
    """How long one pull waits on the server for work."""
    inactive_s: float = Field(default=3600.0, gt=0)
    """A queue nobody pulls from for this long is removed by the server."""
