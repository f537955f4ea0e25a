"""`LocalCluster`: a JetStream cluster of real ``nats-server`` processes on one machine.

Each node is an `EmbeddedServer` with its own store folder, client port and route port,
routed to every other node on loopback. It is what tests and benchmarks use to run a
society across nodes without containers; ``compose.yaml`` builds the same shape from
separate hosts. The cluster accepts clients when `start` returns; JetStream needs a
moment more to elect its meta leader (`bus.runlog.ensure_stream` waits for it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bus.server import EmbeddedServer, free_port

__all__ = ["LocalCluster"]


class LocalCluster:
    """``size`` routed nats-server nodes with JetStream, in folders under ``base_dir``."""

    def __init__(
        self,
        base_dir: Path,
        size: int = 3,
        *,
        name: str = "society",
        host: str = "127.0.0.1",
        config_file: Path | None = None,
    ) -> None:
        if size < 1:
            msg = f"a cluster needs at least one node, not {size}"
            raise ValueError(msg)
        route_ports = [free_port(host) for _ in range(size)]
        routes = ",".join(f"nats-route://{host}:{p}" for p in route_ports)
        self.name = name
        self.nodes = [
            EmbeddedServer(
                Path(base_dir) / f"n{i + 1}",
                host=host,
                name=f"n{i + 1}",
                config_file=config_file,
                extra_args=(
                    "--cluster_name",
                    name,
                    "--cluster",
                    f"nats://{host}:{port}",
                    "--routes",
                    routes,
                ),
            )
            for i, port in enumerate(route_ports)
        ]

    @property
    def urls(self) -> list[str]:
        """The client URL of each node."""
        return [node.url for node in self.nodes]

    async def __aenter__(self) -> LocalCluster:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start every node (together: each waits for its routes)."""
        try:
            await asyncio.gather(*(node.start() for node in self.nodes))
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop every node."""
        await asyncio.gather(*(node.stop() for node in self.nodes), return_exceptions=True)
