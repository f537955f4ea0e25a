"""What every ``society`` command shares: the consoles, the exit codes, running a
coroutine so that Ctrl-C and SIGTERM clean up, and turning errors into one clear line."""

from __future__ import annotations

import signal
from collections.abc import Callable, Coroutine
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from society.errors import ModelConfigError, RunError, ScenarioError
from society.view.terminal_text import safe_block

if TYPE_CHECKING:
    from rich.console import Console

    from society.scenario import Scenario

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_ENVIRONMENT",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "err",
    "escape",
    "fail",
    "guarded",
    "load_or_exit",
    "load_or_exit_with",
    "or_exit",
    "out",
    "run_async",
]

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130

T = TypeVar("T")


class LazyConsole:
    """A rich console made on first use, so `society --help` never loads rich's console."""

    def __init__(self, *, stderr: bool) -> None:
        self.stderr = stderr

    @cached_property
    def real(self) -> Console:
        """The console itself (for code that takes one)."""
        from rich.console import Console

        return Console(stderr=self.stderr)

    def print(self, *objects: Any, **options: Any) -> None:
        """`rich.console.Console.print`."""
        self.real.print(*objects, **options)

    def rule(self, title: str = "", **options: Any) -> None:
        """`rich.console.Console.rule`."""
        self.real.rule(title, **options)


def escape(text: str) -> str:
    """`rich.markup.escape`, loaded when first needed."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


err = LazyConsole(stderr=True)
out = LazyConsole(stderr=False)


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro``; SIGTERM and Ctrl-C cancel it so every context manager cleans up (and
    one more of either, during clean-up, cannot cut short what must finish: the log)."""
    import asyncio  # here, not at the top: `society --help` starts without it

    async def wrapper() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, task.cancel)
        try:
            return await coro
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)

    try:
        return asyncio.run(wrapper())
    except (KeyboardInterrupt, asyncio.CancelledError):
        err.print("[yellow]interrupted[/]: stopped and cleaned up")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def fail(message: str, code: int) -> typer.Exit:
    """Print an error line and return the Exit to raise."""
    err.print(f"[red]error:[/] {escape(safe_block(message))}", highlight=False)
    return typer.Exit(code)


def load_or_exit(path: Path) -> Scenario:
    """Load a scenario, or print its issues and exit 2."""
    from society.scenario import load_scenario

    return load_or_exit_with(load_scenario, path)


def load_or_exit_with(load: Callable[[Path], T], path: Path) -> T:
    """Load a file with ``load`` (a scenario, a suite), or print its issues and exit 2."""
    try:
        return load(path)
    except ScenarioError as exc:
        for issue in exc.issues:
            err.print(
                f"[red]error:[/] {escape(safe_block(str(issue)))}", highlight=False, soft_wrap=True
            )
        raise typer.Exit(EXIT_BAD_INPUT) from None


def guarded(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine, turning environment problems into clear errors and exit codes."""
    from bus import BusError
    from sandbox.errors import SandboxError

    try:
        return run_async(make())
    except BusError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    except SandboxError as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None
    except ModelConfigError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except RunError as exc:
        raise fail(str(exc), EXIT_FAILED) from None


def or_exit(make: Callable[[], T]) -> T:
    """Call ``make``; a RunError becomes a clear message and exit 2."""
    try:
        return make()
    except RunError as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
