"""The seams a role's model calls use beyond the model: the tools it may call (MCP servers
in ``society.tools``, or recorded results in a re-run) and the record of its prompts.

Both are given by the application; the roles only see these protocols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from autogen_core.tools import ToolSchema

from bus.payloads import ToolCall, ToolRequest

__all__ = ["PromptRecorder", "ToolBox"]


class ToolBox(Protocol):
    """The tools one role may call."""

    def schemas(self) -> Sequence[ToolSchema]:
        """What the model is offered (name, description, JSON schema of the arguments)."""
        ...

    async def call(self, request: ToolRequest, *, role: str, task_id: str | None) -> ToolCall:
        """Make one call the model asked for; never raises for the tool's own failure: a
        refused, failed or timed-out call comes back with ``error`` set."""
        ...


class PromptRecorder(Protocol):
    """Stores each model request (redacted, content-addressed) and names it by hash."""

    def record(self, request: Mapping[str, Any]) -> str:
        """Store ``request``; returns its sha256 (the file is ``prompts/<sha256>.json``)."""
        ...
