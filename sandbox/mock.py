"""A code runner for unit tests, beside the real sandbox (as httpx ships ``MockTransport``):
a handler decides what each execution returns, so the coder, the verifier, the eval's arms
and the rule that decides ``succeeded`` are tested without Docker or NATS.

    runner = MockRunner(local_python)            # runs trusted test code on this machine
    runner = MockRunner(lambda code, files: ExecutionResult(exit_code=0, stdout="6"))

`local_python` runs the code with this machine's Python in a fresh temporary folder, with
``files`` in it, and returns the files it wrote: no isolation at all, so it is for code a
test wrote, never for a model's. Integration tests use the real `Sandbox`.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from sandbox.result import ExecutionResult

__all__ = ["Handler", "MockRunner", "local_python"]

Handler = Callable[[str, Mapping[str, bytes]], ExecutionResult | Awaitable[ExecutionResult]]
"""What one execution returns: (code, files) -> result (or an awaitable of it)."""


class MockRunner:
    """Runs nothing itself: every execution is answered by ``handler`` and recorded."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.executed: list[tuple[str, dict[str, bytes]]] = []
        """Every execution asked for, in order: its code and files."""

    async def execute(
        self, code: str, files: Mapping[str, bytes] | None = None, timeout_s: float | None = None
    ) -> ExecutionResult:
        """The handler's result for ``code`` with ``files``."""
        given = dict(files or {})
        self.executed.append((code, given))
        result = self.handler(code, given)
        return await result if inspect.isawaitable(result) else result


async def local_python(
    code: str, files: Mapping[str, bytes], timeout_s: float = 30.0
) -> ExecutionResult:
    """Run ``code`` with this machine's Python in a fresh folder holding ``files``; the files
    it wrote or changed come back. Trusted test code only (nothing is isolated)."""
    with tempfile.TemporaryDirectory(prefix="society-mock-") as tmp:
        folder = Path(tmp)
        await asyncio.to_thread(_prepare, folder, code, files)
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "main.py",
            cwd=folder,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout_s)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return ExecutionResult(exit_code=None, timed_out=True, wall_s=timeout_s)
        wall = time.monotonic() - started
        written = await asyncio.to_thread(_written, folder, files)
        return ExecutionResult(
            exit_code=proc.returncode,
            stdout=out.decode(errors="replace"),
            stderr=err.decode(errors="replace"),
            wall_s=wall,
            files=written,
        )


def _prepare(folder: Path, code: str, files: Mapping[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "main.py").write_text(code)


def _written(folder: Path, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The files the code wrote or changed."""
    found = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    return {k: v for k, v in found.items() if k != "main.py" and files.get(k) != v}
