"""``society memory``: look into long-term memory, and keep it clean — list what it holds,
show one lesson with where it came from, forget lessons, export them all."""

# No `from __future__ import annotations`: typer reads every command's annotations at each
# start, and evaluating them from strings took 30-40 ms of every `society` command.
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from society.cli.support import EXIT_BAD_INPUT, fail, out
from society.view.terminal_text import safe_block, safe_line

if TYPE_CHECKING:
    from roles.memory import Memory

__all__ = ["memory_app"]

memory_app = typer.Typer(
    help="Long-term memory: the lessons and feedback runs recall into their prompts.",
    no_args_is_help=True,
)

MemoryDir = Annotated[
    Path,
    typer.Option("--memory-dir", help="The memory folder (default: the runs folder's memory/)"),
]
DEFAULT_DIR = Path("runs") / "memory"


def _open(folder: Path) -> "Memory":
    from roles.memory import Memory  # sqlite only when a memory command runs

    if not (folder / "memory.sqlite3").is_file():
        msg = f"no memory in {folder} (give --memory-dir)"
        raise fail(msg, EXIT_BAD_INPUT)
    return Memory(folder)


def _when(created: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(created))


@memory_app.command("list")
def list_lessons(
    memory_dir: MemoryDir = DEFAULT_DIR,
    kind: Annotated[str | None, typer.Option(help="lesson or feedback")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many (newest first)")] = 50,
) -> None:
    """What the memory holds, newest first."""
    from rich.table import Table
    from rich.text import Text

    memory = _open(memory_dir)
    try:
        entries = memory.entries(kind=kind, limit=limit)
        total = memory.count()
    finally:
        memory.close()
    table = Table(title=f"{total} in {memory_dir}", title_justify="left")
    for column in ("id", "kind", "about", "learned", "run", "text"):
        table.add_column(column, overflow="fold")
    for e in entries:
        table.add_row(
            str(e.id),
            e.kind,
            safe_line(e.task_kind),
            _when(e.created),
            safe_line(e.run_id),
            Text(safe_line(e.text[:200])),
        )
    out.print(table)


@memory_app.command("show")
def show(
    lesson_id: Annotated[int, typer.Argument(metavar="ID", help="The lesson's id (see list)")],
    memory_dir: MemoryDir = DEFAULT_DIR,
) -> None:
    """One lesson in full, with the goal, run and message it came from."""
    from rich.text import Text

    memory = _open(memory_dir)
    try:
        entry = memory.get(lesson_id)
    finally:
        memory.close()
    if entry is None:
        msg = f"no lesson {lesson_id} in {memory_dir}"
        raise fail(msg, EXIT_BAD_INPUT)
    for label, value in (
        ("id", str(entry.id)),
        ("kind", entry.kind),
        ("about", entry.task_kind),
        ("learned", _when(entry.created)),
        ("goal", entry.goal or "(not recorded)"),
        ("run", entry.run_id),
        ("from message", entry.source),
    ):
        out.print(Text(f"{label:>13}: ", style="bold") + Text(safe_line(value)))
    out.print(Text(safe_block(entry.text)))


@memory_app.command("forget")
def forget(
    lesson_ids: Annotated[list[int], typer.Argument(metavar="ID...", help="Lessons to delete")],
    memory_dir: MemoryDir = DEFAULT_DIR,
) -> None:
    """Delete lessons so that no run recalls them again."""
    memory = _open(memory_dir)
    try:
        missing = [i for i in lesson_ids if memory.get(i) is None]
        if missing:
            listed = ", ".join(map(str, missing))
            msg = f"no lesson {listed} in {memory_dir}; nothing forgotten"
            raise fail(msg, EXIT_BAD_INPUT)
        for lesson_id in lesson_ids:
            memory.forget(lesson_id)
    finally:
        memory.close()
    out.print(f"forgot {len(lesson_ids)} lesson(s): {', '.join(map(str, lesson_ids))}")


@memory_app.command("export")
def export(
    memory_dir: MemoryDir = DEFAULT_DIR,
    to: Annotated[
        Path | None, typer.Option("--out", help="Write JSON lines here (default: stdout)")
    ] = None,
) -> None:
    """Every lesson and feedback as JSON lines, oldest first (with goal, run and source)."""
    memory = _open(memory_dir)
    try:
        entries = list(reversed(memory.entries()))
    finally:
        memory.close()
    lines = "".join(json.dumps(asdict(e), ensure_ascii=False) + "\n" for e in entries)
    if to is None:
        typer.echo(lines, nl=False)
    else:
        to.write_text(lines)
        out.print(f"wrote {len(entries)} lesson(s) to {to}")


@memory_app.command("learn")
def learn(
    results: Annotated[
        list[Path], typer.Argument(metavar="RESULTS...", help="Results JSON of `society eval`")
    ],
    memory_dir: MemoryDir = DEFAULT_DIR,
) -> None:
    """Keep as verified solutions the programs behind the society's answers that an eval's
    graders passed (learn from train; measure on val with `society eval --memory`)."""
    from roles.memory import Memory
    from society.eval.learned import learn_solutions

    for path in results:
        if not path.is_file():
            msg = f"{path}: no such results file"
            raise fail(msg, EXIT_BAD_INPUT)
    memory = Memory(memory_dir)
    try:
        for path in results:
            try:
                learned = learn_solutions(path, memory)
            except ValueError as exc:
                msg = f"{path}: not the results of `society eval`: {str(exc)[:300]}"
                raise fail(msg, EXIT_BAD_INPUT) from exc
            half = f" ({learned.split})" if learned.split else ""
            out.print(
                f"{path}{half}: {len(learned.added)} solution(s) stored, "
                f"{len(learned.kept)} already kept, {len(learned.skipped)} without one",
                highlight=False,
            )
            for case, why in learned.skipped.items():
                out.print(f"  {safe_line(case)}: {safe_line(why)}", highlight=False)
        total = memory.count()
    finally:
        memory.close()
    out.print(f"memory {memory_dir}: {total} entries", highlight=False)
