"""``society attach`` and ``society invite``: the commands of the people who take part in
a running society (joining it as the human, and issuing someone a credential)."""

# No `from __future__ import annotations`: typer reads the annotations (see society.cli).
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from society.cli.support import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, fail, out, run_async

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["attach", "invite"]


def attach(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Id of the run to join")],
    nats: Annotated[
        str | None,
        typer.Option(
            "--nats", help="The run's NATS server (default: from RUNS_DIR/RUN/server.json)"
        ),
    ] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
    name: Annotated[
        str | None, typer.Option(help="Your name in the run (default: your login name)")
    ] = None,
    connect_timeout: Annotated[float, typer.Option(help="Seconds to wait for the server")] = 5.0,
    creds: Annotated[
        Path | None,
        typer.Option(
            help="Your credential file (from `society invite`); the run's owner needs none"
        ),
    ] = None,
) -> None:
    """Join a running society as the human: see the conversation, answer, approve, steer, rate."""
    from bus import BusError
    from society.errors import RunNotFound, ServerUnreachable
    from society.human import attach as attach_run

    try:
        run_async(
            attach_run(
                run_id,
                runs_dir=runs_dir,
                nats_url=nats,
                name=name,
                console=_plain_console(),
                connect_timeout_s=connect_timeout,
                creds=creds,
            )
        )
    except RunNotFound as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    except (ServerUnreachable, BusError) as exc:
        raise fail(str(exc), EXIT_ENVIRONMENT) from None


def invite(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Id of the run")],
    name: Annotated[str, typer.Option(help="The person's name in the run")],
    runs_dir: Annotated[Path, typer.Option(help="Where run folders are")] = Path("runs"),
) -> None:
    """Issue a person their own credential for a run you own (they attach with --creds)."""
    from bus import BusError, subjects
    from society.credentials import RunCredentials
    from society.errors import RunNotFound

    run_dir = runs_dir / run_id
    try:
        subjects.check_token(run_id, "run id")
        subjects.check_token(name, "name")
        if not (run_dir / "creds").is_dir():
            msg = f"no run {run_id!r} with credentials in {runs_dir} (give --runs-dir)"
            raise RunNotFound(msg)
        cred, new = RunCredentials(run_dir, run_id).invite(name)
    except (RunNotFound, BusError) as exc:
        raise fail(str(exc), EXIT_BAD_INPUT) from None
    path = RunCredentials(run_dir, run_id).path_of(cred.sender)
    said = "issued" if new else "already had"
    out.print(f"{name} {said} a credential for run {run_id}: {path}")
    out.print(f"[dim]they attach with: society attach {run_id} --creds FILE --nats URL[/]")


def _plain_console() -> "Console":
    """A console for a session of its own (no highlighting of numbers and paths)."""
    from rich.console import Console

    return Console(highlight=False)
