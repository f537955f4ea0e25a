"""The Sandbox: runs untrusted Python in hardened, single-use Docker containers from a warm pool.

    async with Sandbox(settings, label=run_id) as sb:
        result = await sb.execute("print(1 + 1)", files={"data.csv": b"..."})

``__aenter__`` connects to Docker (bounded time; DockerUnavailable says how to fix it),
checks the image (ImageMissing says how to get it), and starts the pool, waiting for its
first container so a broken image fails here. Each ``execute`` takes its own container, so
concurrent calls never share files or processes; the container is destroyed afterwards and
the pool replaces it. Time is enforced twice: by the supervisor inside the container, and by
an asyncio timeout here that destroys the container if the supervisor does not answer.
"""

from __future__ import annotations

import asyncio
import enum
import time
import uuid
from collections.abc import Mapping
from types import TracebackType

import docker
import structlog

from sandbox.cleanup import remove_containers, remove_orphans
from sandbox.container import WarmContainer, destroy, start_warm
from sandbox.daemon import connect
from sandbox.errors import ContainerStopped, SandboxClosed, SandboxFailure
from sandbox.images import ensure_image
from sandbox.inputs import check_inputs, effective_timeout
from sandbox.labels import check_label, container_labels
from sandbox.pool import Pool
from sandbox.result import ExecutionResult
from sandbox.settings import SandboxSettings

__all__ = ["GRACE_S", "Sandbox", "SandboxState"]

GRACE_S = 10.0
"""How long past the timeout the host waits for the supervisor before killing the container."""

log = structlog.get_logger("sandbox")


class SandboxState(enum.Enum):
    """Lifecycle of a Sandbox: started once, closed once."""

    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


class Sandbox:
    """Hardened code execution with a warm pool; an async context manager."""

    def __init__(
        self,
        settings: SandboxSettings | None = None,
        *,
        label: str = "sandbox",
        wait_for_removal: bool = True,
    ) -> None:
        self.settings = settings or SandboxSettings()
        self.label = check_label(label)
        self.wait_for_removal = wait_for_removal
        """False: a container that stops by itself (idle, or used and answered) is left to
        Docker's auto-remove once its connection is closed, so neither the retirement of a
        used container nor ``close`` waits for Docker (a CLI's quick exit). True: "closed"
        means gone, for whoever counts containers next."""
        self.pool_id = uuid.uuid4().hex[:16]
        """Labels every container of this sandbox, so ``close`` can sweep up stragglers."""
        self._state = SandboxState.NEW
        self._client: docker.DockerClient | None = None
        self._pool: Pool[WarmContainer] | None = None

    @property
    def state(self) -> SandboxState:
        """NEW, OPEN or CLOSED."""
        return self._state

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Connect, check the image, start the pool and wait for its first container."""
        if self._state is not SandboxState.NEW:
            msg = f"a Sandbox starts once; this one is {self._state.value}"
            raise SandboxClosed(msg)
        self._state = SandboxState.OPEN
        try:
            self._client = await asyncio.to_thread(connect, self.settings.docker_host)
            client = self._client
            await asyncio.to_thread(self._remove_orphans, client)
            await asyncio.to_thread(
                ensure_image, client, self.settings.image, pull=self.settings.pull
            )
            settings = self.settings
            self._pool = Pool(self._spawn, self._retire, settings.pool_size, settings.pool_max)
            await self._pool.start()
        except BaseException:
            await self.close()
            raise

    async def execute(
        self,
        code: str,
        files: Mapping[str, bytes] | None = None,
        timeout_s: float | None = None,
    ) -> ExecutionResult:
        """Run ``code`` with ``python3`` in a fresh container, with ``files`` in its work dir.

        The code runs as ``__main__`` (like ``python3 -c``: no ``__file__``) in the work dir,
        which holds ``files``; the result carries the files it wrote or changed there.
        ``timeout_s`` defaults to, and never exceeds, ``settings.timeout_s``. Failures of the
        code are results; failures of the sandbox are results with ``error`` set. Raises
        SandboxInputError for bad input and SandboxClosed when not open.
        """
        pool = self._open_pool()
        inputs = dict(files or {})
        check_inputs(code, inputs, self.settings)
        limit = effective_timeout(timeout_s, self.settings)
        started = time.monotonic()
        try:
            container = await pool.acquire()
        except SandboxFailure as exc:
            return ExecutionResult.failure(str(exc), time.monotonic() - started)
        try:
            async with asyncio.timeout(limit + GRACE_S):
                return await container.run(code, inputs, limit)
        except TimeoutError:
            waited = time.monotonic() - started
            message = f"the sandbox did not answer within {waited:.1f} s; its container was killed"
            return ExecutionResult.failure(message, waited, timed_out=True)
        except SandboxFailure as exc:
            oom = isinstance(exc, ContainerStopped) and exc.oom_killed
            return ExecutionResult.failure(str(exc), time.monotonic() - started, oom_killed=oom)
        finally:
            pool.release(container)

    @property
    def pool_target(self) -> int:
        """Warm containers the pool keeps ready now (pool_size, up to pool_max with demand)."""
        return self._open_pool().target

    async def wait_idle(self) -> None:
        """Wait until the pool is full again and used containers are gone (benchmarks, tests)."""
        await self._open_pool().wait_idle()

    async def close(self) -> None:
        """Destroy every container of this sandbox; safe to call twice, survives Ctrl-C."""
        if self._state is SandboxState.CLOSED:
            return
        self._state = SandboxState.CLOSED
        client, self._client = self._client, None
        pool, self._pool = self._pool, None
        if client is None:
            return
        try:
            if pool is not None:
                await pool.close()
            # Not waiting: every container the pool made is gone or on its way out (one whose
            # start is still under way looks "created" but runs, sees EOF and goes).
            if self.wait_for_removal:
                await asyncio.to_thread(self._sweep, client)
        except asyncio.CancelledError:
            self._sweep(client)  # blocking, but nothing may outlive us
            raise
        finally:
            client.close()

    @staticmethod
    def _remove_orphans(client: docker.DockerClient) -> None:
        """Containers a killed process of this machine created but never started."""
        try:
            removed = remove_orphans(client)
        except Exception as exc:  # best effort: gc remains
            log.warning("sandbox.orphan_sweep_failed", error=str(exc))
            return
        if removed:
            log.info("sandbox.removed_orphans", removed=removed)

    def _sweep(self, client: docker.DockerClient) -> None:
        """Remove any container of this pool still known to Docker (a start racing close)."""
        try:
            removed = remove_containers(client, pool=self.pool_id)
        except Exception as exc:  # the daemon went away: gc will find them later
            log.warning("sandbox.sweep_failed", pool=self.pool_id, error=str(exc))
            return
        if removed:
            log.info("sandbox.swept", pool=self.pool_id, removed=removed)

    def _open_pool(self) -> Pool[WarmContainer]:
        if self._state is not SandboxState.OPEN or self._pool is None:
            msg = f"the sandbox is {self._state.value}; use it inside `async with Sandbox(...)`"
            raise SandboxClosed(msg)
        return self._pool

    async def _spawn(self) -> WarmContainer:
        assert self._client is not None
        labels = container_labels(self.label, self.pool_id)
        return await start_warm(
            self._client.api, self.settings, labels, wait_for_removal=self.wait_for_removal
        )

    async def _retire(self, container: WarmContainer) -> None:
        if not self.wait_for_removal and container.leaves_by_itself:
            container.channel.close()
            return
        await destroy(container.api, container.id, container.channel)
