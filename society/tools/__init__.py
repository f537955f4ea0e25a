"""Tools over MCP: the scenario's servers (`spec`), live calls through AutoGen's MCP
workbench (`mcp`), and a run's recorded calls served back in a re-run (`recorded`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from roles.tools import ToolBox

__all__ = ["Tools"]


class Tools(Protocol):
    """Where a process's roles get their tools."""

    def for_role(self, role: str) -> ToolBox | None:
        """The tools ``role`` may call (None: none)."""
        ...
