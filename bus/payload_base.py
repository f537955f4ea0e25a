"""The base of every payload model: frozen, strict, and naming its channel."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from bus.subjects import Channel

__all__ = ["_Model", "_Payload"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Payload(_Model):
    CHANNEL: ClassVar[Channel]
    DURABLE: ClassVar[bool] = False
