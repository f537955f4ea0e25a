"""A tool call through the society against the same MCP call made directly, in one run.

Through the society: `society.tools.mcp.RoleTools.call` (argument parsing, rate limit,
timeout, size cap, the `ToolCall` record) and the record published on the bus (a real
embedded nats-server), as a role does. Directly: the official `mcp` SDK's
`ClientSession.call_tool` on its own stdio session to a second copy of the same server.
Pairs are interleaved (society, direct, society, direct…); prints p50 and the spread
(p25-p75) of each and the ratio of the p50s.

    python bench/tools.py [--calls 300]
    python bench/tools.py --short   # seconds: small sizes, checks that it runs

Target (issue 14): the society's p50 <= 1.5x the direct call's p50.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common  # before the project's packages: it drops bench/ from the path
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from bus import Bus, EmbeddedServer
from bus.payloads import ToolRequest
from society.tools.mcp import McpTools
from society.tools.spec import ToolServerSpec

SERVER = Path(__file__).resolve().parents[1] / "tests" / "mcp_tools.py"


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


async def main(calls: int) -> None:
    spec = ToolServerSpec(command=sys.executable, args=[str(SERVER)])
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    with tempfile.TemporaryDirectory() as store:
        async with (
            EmbeddedServer(Path(store)) as nats_server,
            Bus(nats_server.url, name="bench") as bus,
            McpTools({"test": spec}, {"researcher": ["test.echo"]}) as tools,
            stdio_client(params) as (read, write),
            ClientSession(read, write) as direct,
        ):
            await direct.initialize()
            role = tools.for_role("researcher")
            assert role is not None
            request = ToolRequest(id="c", name="echo", arguments='{"text": "hello"}')
            through: list[float] = []
            straight: list[float] = []
            for i in range(calls + 20):
                t0 = time.perf_counter()
                record = await role.call(request, role="researcher", task_id="t")
                await bus.send("bench", "researcher/0", record, task_id="t")
                t1 = time.perf_counter()
                result = await direct.call_tool("echo", {"text": "hello"})
                t2 = time.perf_counter()
                assert record.result == "echo: hello"
                assert not result.isError
                if i >= 20:  # warm-up pairs are not counted
                    through.append((t1 - t0) * 1000)
                    straight.append((t2 - t1) * 1000)
    s25, s50, s75 = quartiles(through)
    d25, d50, d75 = quartiles(straight)
    print(f"{calls} interleaved pairs of one MCP tool call (echo over stdio)")
    print(f"  through the society: p50 {s50:.3f} ms (p25-p75 {s25:.3f}-{s75:.3f})")
    print(f"  direct mcp SDK:      p50 {d50:.3f} ms (p25-p75 {d25:.3f}-{d75:.3f})")
    ratios = sorted(a / b for a, b in zip(through, straight, strict=True))
    print(
        f"  ratio of p50s: {s50 / d50:.2f}x (pairwise ratio p25-p75 "
        f"{ratios[len(ratios) // 4]:.2f}-{ratios[3 * len(ratios) // 4]:.2f}); target <= 1.5x"
    )


SHORT = {"calls": 30}
"""The sizes of ``--short`` (`common.parse`)."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = common.parse(parser, SHORT)
    asyncio.run(main(args.calls))
