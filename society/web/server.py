"""``society web``: a local web server (Starlette on uvicorn) for the runs folder.

Finished runs and bundles are read from their log files, read-only. A live run is
followed from its server's run log (as its owner, with the credential in its folder);
a signed-in person acting from the page takes part as ``human/<their name>`` through the
same session ``society attach`` uses, so their answers and controls are signed with their
own identity (`society.web.access` says who may sign in, and what each request must
show). The page is plain HTML and a little JavaScript that polls a JSON view every
second; the graph is SVG drawn here — nothing to build, nothing fetched.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from society.errors import SocietyError
from society.web.access import is_loopback
from society.web.routes import make_app
from society.web.state import WebApp

__all__ = ["allowed_hosts_for", "serve"]


def allowed_hosts_for(host: str) -> list[str]:
    """The Host names a server listening on ``host`` answers: the loopback names, and the
    address itself; any name when it listens on every address (reading then needs a
    session anyway)."""
    loopback = ["127.0.0.1", "localhost", "::1", "[::1]"]
    if host in ("0.0.0.0", "::", ""):
        return ["*"]
    return loopback if host in loopback else [host, *loopback]


async def serve(
    runs_dir: Path, *, host: str, port: int, person: str | None, extra: list[Path]
) -> None:
    """Serve until interrupted; prints the address once it listens."""
    import uvicorn

    web = WebApp(runs_dir, person, extra, open_reading=is_loopback(host))
    app = make_app(web, allowed_hosts_for(host))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started and not task.done():  # noqa: ASYNC110 - uvicorn has no event
            await asyncio.sleep(0.05)
        if task.done():
            with contextlib.suppress(SystemExit):
                task.result()
            msg = f"the web view could not listen on {host}:{port} (in use? try --port 0)"
            raise SocietyError(msg)
        bound = server.servers[0].sockets[0].getsockname()[1]
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        base = f"http://{shown}:{bound}"
        print(f"society web: {base}/ (runs in {runs_dir}; Ctrl-C stops)", flush=True)
        print(
            f"sign in as {web.access.owner} (once, this link only): "
            f"{base}/login?key={web.access.owner_key}",
            flush=True,
        )
        print(
            "invited people sign in on the page with the credential file `society invite` "
            "wrote for them",
            flush=True,
        )
        if not web.open_reading:
            print(
                f"listening beyond loopback ({host}): reading runs needs signing in too",
                flush=True,
            )
        await task
    finally:
        server.should_exit = True
        with contextlib.suppress(BaseException):
            await task
        await web.close()
