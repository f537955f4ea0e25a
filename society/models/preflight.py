"""Before a run starts anything: every model client it will use can be built (its API key
is set) and every model server answers, so a typo costs a second, not a run."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import structlog

from society.errors import ModelConfigError
from society.models.factory import ModelFactory

__all__ = ["preflight"]

log = structlog.get_logger("models")


BUSY_S = 5.0
"""How long a server that took the connection may take to answer before it counts as up
but busy (a local server generating for someone else answers nothing meanwhile)."""


async def _reachable(endpoint: str, timeout_s: float) -> str | None:
    """None when a server at ``endpoint`` takes the connection (and answers HTTP, any
    status, or is too busy to answer soon), else why not."""
    import httpx  # only runs with a live model server need it (a tenth of a second to load)

    timeout = httpx.Timeout(timeout_s, read=BUSY_S)
    try:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            await client.get(f"{endpoint}/models")
    except httpx.ReadTimeout:
        log.info("model server busy; going on", endpoint=endpoint)  # it is there
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return None


async def preflight(
    factory: ModelFactory, uses: Iterable[tuple[str, str]], *, timeout_s: float = 30.0
) -> None:
    """Build each (model, role) client and reach each live server; raises
    `ModelConfigError` naming the model, the server and what to do."""
    uses = list(uses)
    if factory.recorded is not None and not factory.live_after_recorded:
        return  # a re-run serves the log: no model is called
    factory.check(uses)
    servers: dict[str, str] = {}
    for model_name, _ in uses:
        spec = factory.models[model_name]
        if spec.provider not in ("scripted", "replay"):
            servers.setdefault(spec.endpoint(), f"{model_name} ({spec.model_name()})")
    checks = [
        e for e in servers if e.startswith(("http://", "https://"))
    ]  # other providers' SDKs find their own endpoint
    problems = await asyncio.gather(*(_reachable(e, timeout_s) for e in checks))
    for endpoint, problem in zip(checks, problems, strict=True):
        if problem is not None:
            msg = (
                f"cannot reach the model server for {servers[endpoint]} at {endpoint}: {problem}"
                " — start the server, or fix base_url (--base-url)"
            )
            raise ModelConfigError(msg)
