"""Live MCP tools: each server the scenario's roles use is started (stdio) or reached
(streamable HTTP) through AutoGen's `McpWorkbench` on the official ``mcp`` SDK, its tools
are listed and checked against what the roles name, and every call is bounded — a
timeout, a rate limit, a cap on the result's size — and returned as a `ToolCall` record.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import Any

from autogen_core.tools import ToolSchema
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams, StreamableHttpServerParams
from mcp.client.stdio import get_default_environment

from bus.payloads import ToolCall, ToolRequest
from society.errors import RunError
from society.models.env import expand_env
from society.models.ratelimit import RateLimiter
from society.tools.spec import ToolServerSpec, allowed

__all__ = ["McpTools", "RoleTools", "cut", "parse_arguments"]


def _command(name: str) -> str:
    """A command on PATH, else beside this Python (a venv's scripts), else as given."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    return found or name


def _params(spec: ToolServerSpec) -> StdioServerParams | StreamableHttpServerParams:
    if spec.url is not None:
        return StreamableHttpServerParams(
            url=spec.url, headers=expand_env(spec.headers), timeout=spec.start_timeout_s
        )
    assert spec.command is not None
    return StdioServerParams(
        command=_command(spec.command),
        args=list(spec.args),
        env={**get_default_environment(), **expand_env(spec.env)},
        read_timeout_seconds=spec.timeout_s + 5,
    )


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, with a note saying so."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n[cut: {len(text):,} characters, showing the first {limit:,}]", True


def parse_arguments(text: str) -> dict[str, Any]:
    """The model's arguments (JSON text) as a mapping; raises ValueError saying why not."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        msg = f"the arguments are not JSON: {exc}"
        raise ValueError(msg) from None
    if not isinstance(data, dict):
        msg = "the arguments must be a JSON object"
        raise ValueError(msg)
    return data


class _Server:
    def __init__(self, name: str, spec: ToolServerSpec, bench: McpWorkbench) -> None:
        self.name = name
        self.spec = spec
        self.bench = bench
        self.schemas: list[ToolSchema] = []
        self.limiter = (
            RateLimiter(spec.rate_limit.rpm, None)
            if spec.rate_limit and spec.rate_limit.rpm
            else None
        )


class RoleTools:
    """The tools one role may call (implements `roles.tools.ToolBox`)."""

    def __init__(self, role: str, names: dict[str, _Server]) -> None:
        self.role = role
        self.names = names

    def schemas(self) -> Sequence[ToolSchema]:
        """What the model is offered."""
        return [s for name, srv in self.names.items() for s in srv.schemas if s["name"] == name]

    async def call(self, request: ToolRequest, *, role: str, task_id: str | None) -> ToolCall:
        """One bounded call; failures come back as ``error``."""
        server = self.names.get(request.name)
        tool, call_id = request.name, request.id
        if server is None:
            offered = ", ".join(self.names) or "none"
            why = f"tool {request.name!r} is not available to the {role} (it may use: {offered})"
            return ToolCall(server="", tool=tool, call_id=call_id, error=why)
        try:
            arguments = parse_arguments(request.arguments)
        except ValueError as exc:
            return ToolCall(server=server.name, tool=tool, call_id=call_id, error=str(exc))
        if server.limiter is not None:
            await server.limiter.acquire(0)
        started = time.monotonic()
        result: str | None = None
        error: str | None = None
        size, truncated = 0, False
        try:
            answer = await asyncio.wait_for(
                server.bench.call_tool(request.name, arguments), server.spec.timeout_s
            )
        except TimeoutError:
            error = f"no answer within {server.spec.timeout_s:g} s (the tool timed out)"
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
        else:
            text = answer.to_text()
            size = len(text)
            shown, truncated = cut(text, server.spec.max_result_chars)
            if answer.is_error:
                error = shown
            else:
                result = shown
        return ToolCall(
            server=server.name,
            arguments=arguments,
            result=result,
            error=error,
            latency_s=round(time.monotonic() - started, 6),
            size=size,
            truncated=truncated,
            tool=tool,
            call_id=call_id,
        )


class McpTools:
    """The MCP servers a run's roles use, started for the run and stopped after it."""

    def __init__(self, servers: dict[str, ToolServerSpec], uses: dict[str, list[str]]) -> None:
        self.specs = servers
        self.uses = {role: entries for role, entries in uses.items() if entries}
        self._stack = AsyncExitStack()
        self._roles: dict[str, RoleTools] = {}

    async def __aenter__(self) -> McpTools:
        needed = sorted({e.partition(".")[0] for es in self.uses.values() for e in es})
        servers: dict[str, _Server] = {}
        try:
            for name in needed:
                if name not in self.specs:
                    continue  # reported by `allowed` below, with the known names
                spec = self.specs[name]
                bench = McpWorkbench(_params(spec))
                server = _Server(name, spec, bench)
                try:
                    await asyncio.wait_for(bench.start(), spec.start_timeout_s)
                    self._stack.push_async_callback(bench.stop)
                    server.schemas = list(
                        await asyncio.wait_for(bench.list_tools(), spec.start_timeout_s)
                    )
                except Exception as exc:
                    where = spec.url or " ".join([spec.command or "", *spec.args])
                    msg = f"the MCP server {name!r} ({where}) did not start: {type(exc).__name__}: {exc}"
                    raise RunError(msg) from exc
                servers[name] = server
            offered = {n: [s["name"] for s in srv.schemas] for n, srv in servers.items()}
            offered.update({n: [] for n in self.specs if n not in offered})
            for role, entries in self.uses.items():
                try:
                    names = allowed(entries, offered)
                except ValueError as exc:
                    msg = f"roles.{role}.tools: {exc}"
                    raise RunError(msg) from None
                self._roles[role] = RoleTools(role, {t: servers[s] for t, s in names.items()})
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stack.aclose()

    def for_role(self, role: str) -> RoleTools | None:
        """The tools ``role`` may call (None: none)."""
        return self._roles.get(role)
