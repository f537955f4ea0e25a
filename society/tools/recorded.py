"""A run's tool calls served back from its log, so a re-run is identical with every MCP
server stopped: per lane (role, task), the recorded call with the same tool and arguments,
else the lane's next one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from autogen_core.tools import ToolSchema

from bus import Envelope
from bus.payloads import ToolCall, ToolRequest, Usage
from society.prompts import load_prompt
from society.tools.mcp import parse_arguments

__all__ = ["RecordedTools"]

Lane = tuple[str, str]


class _RoleTools:
    def __init__(self, owner: RecordedTools, role: str) -> None:
        self.owner = owner
        self.role = role

    def schemas(self) -> Sequence[ToolSchema]:
        return self.owner.offered.get(self.role, [])

    async def call(self, request: ToolRequest, *, role: str, task_id: str | None) -> ToolCall:
        left = self.owner.calls[(role, task_id or "")]
        try:
            arguments = parse_arguments(request.arguments)
        except ValueError:
            arguments = {}
        chosen = next(
            (c for c in left if c.tool == request.name and c.arguments == arguments),
            left[0] if left else None,
        )
        if chosen is None:
            return ToolCall(
                server="",
                tool=request.name,
                call_id=request.id,
                error="the log holds no more tool results for this task (the re-run diverged)",
            )
        left.remove(chosen)
        return chosen.model_copy(update={"call_id": request.id})


class RecordedTools:
    """Tool results (and the tools offered, from the run's prompts) of a recorded run."""

    def __init__(self, envelopes: Sequence[Envelope], run_dir: Path | None) -> None:
        self.calls: dict[Lane, list[ToolCall]] = defaultdict(list)
        self.offered: dict[str, list[ToolSchema]] = {}
        for env in envelopes:
            p = env.payload
            if isinstance(p, ToolCall):
                self.calls[(env.role, env.task_id or "")].append(p)
            elif (
                isinstance(p, Usage)
                and p.prompt
                and run_dir is not None
                and env.role not in self.offered
            ):
                request = load_prompt(run_dir, p.prompt)
                if request and request.get("tools"):
                    self.offered[env.role] = list(request["tools"])
        for role in {lane[0] for lane in self.calls}:
            if role not in self.offered:
                names = {c.tool for (r, _), cs in self.calls.items() if r == role for c in cs}
                self.offered[role] = [ToolSchema(name=n) for n in sorted(names)]

    def for_role(self, role: str) -> _RoleTools | None:
        """The recorded tools of ``role`` (None: it used none)."""
        return _RoleTools(self, role) if role in self.offered else None
