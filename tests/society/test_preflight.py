"""Before a run starts anything, every live model server is reached: one that refuses is
named with what to do; one that takes the connection but is busy generating goes on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bus.server import free_port
from society.errors import ModelConfigError
from society.models.factory import ModelFactory, override_spec
from society.models.preflight import preflight

pytestmark = pytest.mark.timeout(60)


def factory(url: str) -> ModelFactory:
    return ModelFactory({"default": override_spec("m", url, None)}, {})


@pytest.fixture
async def silent() -> AsyncIterator[str]:
    """A server that takes connections and never answers (a local model server busy
    generating for another run)."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}/v1"
        for writer in held:
            writer.close()


async def test_a_server_that_refuses_is_named_before_anything_starts() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ModelConfigError) as caught:
        await preflight(factory(url), [("default", "planner")])
    message = str(caught.value)
    assert f"cannot reach the model server for default (m) at {url}" in message
    assert "ConnectError" in message and "--base-url" in message


async def test_a_busy_server_that_took_the_connection_is_there(silent: str) -> None:
    await preflight(factory(silent), [("default", "planner")], timeout_s=10)
