"""What the roles of one run process share: memory, corpus, the code runner (started in
the background) and the MCP tools, each held by the run's exit stack."""

from __future__ import annotations

import shutil
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path

from rich.console import Console

from roles.budget import BudgetGuard
from roles.memory import Corpus, Memory
from society.errors import RunError
from society.run.assembly import Collaborators, docker_sandbox
from society.run.options import RunOptions
from society.run.starting import StartingRunner
from society.scenario import Scenario
from society.tools import Tools

__all__ = ["collaborators"]


async def collaborators(
    stack: AsyncExitStack,
    scenario: Scenario,
    options: RunOptions,
    run_dir: Path,
    run_id: str,
    console: Console,
    guard: BudgetGuard,
) -> Collaborators:
    """What the roles of this process share: memory, corpus, code runner, budget guard."""
    memory_dir = options.memory_dir or (
        Path(scenario.roles.reflector.memory_dir)
        if scenario.roles.reflector.memory_dir
        else options.runs_dir / "memory"
    )
    memory_dir.mkdir(parents=True, exist_ok=True)
    first_start = not options.resume
    if first_start and (memory_dir / "memory.sqlite3").exists():  # recall's, for exact re-runs
        shutil.copyfile(memory_dir / "memory.sqlite3", run_dir / "memory-at-start.sqlite3")
    memory = Memory(memory_dir.resolve())
    stack.callback(memory.close)
    corpus_paths = [scenario.base_dir / p for p in scenario.roles.researcher.corpus]
    missing = [str(p) for p in corpus_paths if not p.exists()]
    if missing:
        text = f"corpus path(s) not found: {', '.join(missing)}"
        raise RunError(text)
    code: StartingRunner | None = None
    if options.workers == "external":
        console.print("[dim]only the manager runs here; waiting for workers…[/]")
    else:
        if options.sandbox_factory is None:
            console.print("[dim]starting the sandbox pool…[/]")
        make = options.sandbox_factory or docker_sandbox
        code = StartingRunner(make(scenario, run_id))  # the run goes on while it starts
        stack.push_async_callback(code.close)
    tools: Tools | None = None
    if scenario.tool_uses() and options.workers != "external":
        if options.tools_factory is None:
            console.print(f"[dim]starting MCP servers: {', '.join(sorted(scenario.tools))}…[/]")
        make_tools = options.tools_factory or _mcp_tools
        tools = await stack.enter_async_context(make_tools(scenario))
    return Collaborators(memory, guard, Corpus(corpus_paths), code, tools=tools)


def _mcp_tools(scenario: Scenario) -> AbstractAsyncContextManager[Tools]:
    from society.tools.mcp import McpTools  # the MCP SDK loads only for runs with tools

    return McpTools(scenario.tools, scenario.tool_uses())
