"""A small MCP server (the official SDK's FastMCP, on stdio) whose tools misbehave on
purpose, for tests of how the society bounds tool calls."""

from __future__ import annotations

import asyncio

from mcp.server.fastmcp import FastMCP

server = FastMCP("misbehaving", log_level="WARNING")  # no INFO line per request on stderr


@server.tool()
def echo(text: str) -> str:
    """Say ``text`` back."""
    return f"echo: {text}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    raise RuntimeError(reason)


@server.tool()
async def hang(seconds: float) -> str:
    """Answers only after ``seconds``."""
    await asyncio.sleep(seconds)
    return "finally"


@server.tool()
def big(megabytes: int) -> str:
    """A result of ``megabytes`` MB."""
    return "x" * (megabytes * 1_000_000)


@server.tool()
def secret() -> str:
    """A tool no role of the test may use."""
    return "the secret"


if __name__ == "__main__":
    server.run()
