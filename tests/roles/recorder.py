"""A stand-in for the bus in unit tests of a role: every payload sent, with made-up ids."""

from __future__ import annotations

from typing import Any

__all__ = ["Recorder"]


class Recorder:
    """Stands for the bus: records every payload sent, answers with made-up ids."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send(self, run_id: str, sender: str, payload: Any, **_: Any) -> str:
        self.sent.append(payload)
        return f"m{len(self.sent)}"
