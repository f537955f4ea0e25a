"""How a scenario declares MCP servers (``tools:``) and which tools a role may call."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from society.models.spec import RateLimit

__all__ = ["ToolServerSpec", "allowed"]


class ToolServerSpec(BaseModel):
    """One MCP server: a command speaking MCP on stdio, or a streamable-HTTP ``url``."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    """Program to start (found on PATH or beside this Python), e.g. ``mcp-server-fetch``."""
    args: list[str] = []
    env: dict[str, str] = {}
    """Extra environment of the server (``${VAR}`` is read from ours)."""
    url: str | None = None
    """A streamable-HTTP MCP endpoint instead of a command."""
    headers: dict[str, str] = {}
    """HTTP headers for ``url`` (``${VAR}`` allowed; redacted in the record)."""
    timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """Longest one tool call may take; a call past it fails (the model is told)."""
    start_timeout_s: float = Field(default=60.0, gt=0, le=600)
    """Longest the server may take to start and list its tools."""
    max_result_chars: int = Field(default=20_000, ge=100, le=10_000_000)
    """Longer results are cut to this (and marked as cut) before the model sees them."""
    rate_limit: RateLimit | None = None
    """Calls per minute this process may make to the server (``rpm``)."""

    @model_validator(mode="after")
    def _one_transport(self) -> ToolServerSpec:
        if (self.command is None) == (self.url is None):
            msg = "give either command (stdio) or url (streamable HTTP)"
            raise ValueError(msg)
        return self


def allowed(entries: list[str], offered: dict[str, list[str]]) -> dict[str, str]:
    """Tool name → server for a role's ``tools`` entries (``server`` or ``server.tool``),
    given what each server offers; raises ValueError for a tool nobody offers."""
    names: dict[str, str] = {}
    for entry in entries:
        server, _, tool = entry.partition(".")
        if server not in offered:
            msg = f"{entry!r} names no MCP server of the scenario (known: {', '.join(sorted(offered)) or 'none'})"
            raise ValueError(msg)
        tools = offered[server] if not tool else [tool]
        for name in tools:
            if name not in offered[server]:
                have = ", ".join(offered[server]) or "nothing"
                msg = f"{entry!r}: the MCP server {server!r} offers no tool {name!r} (it offers: {have})"
                raise ValueError(msg)
            if names.get(name, server) != server:
                msg = f"tool {name!r} is offered by both {names[name]!r} and {server!r}: name one"
                raise ValueError(msg)
            names[name] = server
    return names
