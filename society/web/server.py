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
import dataclasses
import io
import json
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from rich.console import Console
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bus import Bus, BusError, runlog, subjects
from bus.logfile import read_jsonl
from society.credentials import Credential
from society.errors import SocietyError
from society.human.commands import Approve, Command, CommandError, Reject, Reply, Steer
from society.human.locate import connect_to_run, locate_run
from society.human.session import HumanSession, cancel_all, person_name
from society.replay.bundle import is_bundle, open_bundle
from society.replay.source import LiveRun, locate
from society.resumption import still_running
from society.web.access import COOKIE, Access, SignedIn, is_loopback, refusal
from society.web.page import RunPage

__all__ = ["WebApp", "serve"]

log = structlog.get_logger("web")


@dataclass
class _Person:
    """Someone taking part in a live run from the browser."""

    session: HumanSession
    bus: Bus
    task: asyncio.Task[Any]


@dataclass
class WebApp:
    """The runs the web view knows, live followers, and people's sessions."""

    runs_dir: Path
    person: str | None = None
    extra: list[Path] = field(default_factory=list)
    open_reading: bool = True
    """Whether anyone who reaches the server may read (loopback); else only people signed in."""
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="society-web-")))
    _pages: dict[str, tuple[float, RunPage]] = field(default_factory=dict)
    _followers: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    _people: dict[tuple[str, str], _Person] = field(default_factory=dict)
    _opened: dict[str, Path] = field(default_factory=dict)
    """Run id -> folder of a log or bundle given with ``--open``."""

    def __post_init__(self) -> None:
        self.access = Access(person_name(self.person), self.runs_dir)
        for path in self.extra:
            folder = open_bundle(path, self.scratch / path.stem) if is_bundle(path) else None
            log_file = (
                (folder / "log.jsonl")
                if folder
                else (path / "log.jsonl" if path.is_dir() else path)
            )
            read = read_jsonl(log_file)
            if read.run_id:
                self._opened[read.run_id] = log_file.parent

    # -- which runs ----------------------------------------------------------------------

    def runs(self) -> list[dict[str, Any]]:
        """Every run in the runs folder and every one opened, newest first."""
        found = []
        folders = (
            [d for d in self.runs_dir.iterdir() if d.is_dir()] if self.runs_dir.is_dir() else []
        )
        for folder in folders:
            summary = folder / "summary.json"
            status = "live" if still_running(folder) else "unfinished"
            with contextlib.suppress(OSError, ValueError, AttributeError):
                status = json.loads(summary.read_text()).get("status", status)
            if status == "unfinished" and not (folder / "log.jsonl").is_file():
                continue
            found.append({"id": folder.name, "status": status, "mtime": folder.stat().st_mtime})
        for run_id, folder in self._opened.items():
            found.append({"id": run_id, "status": "opened", "mtime": folder.stat().st_mtime})
        return sorted(found, key=lambda r: -r["mtime"])

    def read_only(self, run_id: str) -> bool:
        """Whether the run was opened from a log or bundle (nobody acts on it)."""
        return run_id in self._opened

    def folder_of(self, run_id: str) -> Path:
        """Where a run's files are (its run folder, or an opened log's)."""
        return self._opened.get(run_id) or self.runs_dir / run_id

    async def page(self, run_id: str) -> RunPage:
        """The run's page: followed live, or read from its log file (re-read when it changes)."""
        subjects.check_token(run_id, "run id")
        if run_id in self._followers:
            return self._pages[run_id][1]
        log_file = self.folder_of(run_id) / "log.jsonl"
        if log_file.is_file():
            mtime = log_file.stat().st_mtime
            cached = self._pages.get(run_id)
            if cached is not None and cached[0] == mtime:
                return cached[1]
            page = RunPage(run_id)
            for record in read_jsonl(log_file).records:
                page.take(record)
            self._pages[run_id] = (mtime, page)
            return page
        where = locate(run_id, runs_dir=self.runs_dir)
        if not isinstance(where, LiveRun):
            msg = f"no run {run_id}"
            raise SocietyError(msg)
        page = RunPage(run_id, live=True)
        self._pages[run_id] = (0.0, page)
        self._followers[run_id] = asyncio.create_task(self._follow(where, page))
        return page

    async def _follow(self, where: LiveRun, page: RunPage) -> None:
        try:
            async with Bus(where.connect(), name=f"web-{where.run_id}", reports=False) as bus:
                async for record in runlog.follow_run(bus, where.run_id):
                    page.take(record)
                    if page.state.final is not None:
                        break
        except (BusError, OSError) as exc:
            log.warning("stopped following the run", run=where.run_id, error=str(exc))
        finally:
            page.live = False

    # -- people acting -------------------------------------------------------------------

    async def act(self, run_id: str, who: SignedIn, body: dict[str, Any]) -> str:
        """Carry out a signed-in person's action on a live run; returns what was done."""
        command = _command(body)
        person = await self._person(run_id, who.name, who.credential)
        await person.session.execute(command)
        return f"{type(command).__name__.lower()} sent as {person.session.sender}"

    async def _person(self, run_id: str, name: str, credential: Credential | None) -> _Person:
        key = (run_id, name)
        known = self._people.get(key)
        if known is not None and not known.task.done():
            return known
        if credential is None:  # the owner: their credential from the run folder
            address = locate_run(run_id, runs_dir=self.runs_dir, person=name)
        else:  # an invited person: their own, as given
            found = locate_run(run_id, runs_dir=self.runs_dir)
            address = dataclasses.replace(found, credential=credential)
        bus = await connect_to_run(address, f"web-{name}")
        session = HumanSession(bus, run_id, name, Console(file=io.StringIO()))
        task = asyncio.create_task(session.run())
        ready = asyncio.create_task(session.ready.wait())
        await asyncio.wait({task, ready}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if task.done() or not session.announced:
            await cancel_all([task])
            await bus.close()
            msg = f"could not take part in run {run_id}: it has ended, or its server did not answer"
            raise CommandError(msg)
        person = self._people[key] = _Person(session, bus, task)
        return person

    async def close(self) -> None:
        """Leave every run, stop following."""
        await cancel_all(list(self._followers.values()))
        for person in self._people.values():
            await cancel_all([person.task])
            await person.session.leave()
            await person.bus.close()


def _command(body: dict[str, Any]) -> Command:
    """The attach command for an action from the page."""
    action = str(body.get("action", ""))
    target = body.get("target") or None
    text = str(body.get("text", "")).strip()
    if action == "approve":
        return Approve(target)
    if action == "reject":
        if not text:
            msg = "say why the plan is rejected (the planner reads it)"
            raise CommandError(msg)
        return Reject(target, text)
    if action == "answer":
        if not text:
            msg = "write an answer first"
            raise CommandError(msg)
        return Reply(target, text)
    if action in ("pause", "resume", "abort"):
        return Steer(action, text or "from the web view")  # type: ignore[arg-type]
    msg = f"unknown action {action!r}"
    raise CommandError(msg)


def _html(name: str) -> str:
    return (resources.files("society.web") / name).read_text(encoding="utf-8")


def _unsigned(web: WebApp, who: SignedIn | None, run_id: str | None = None) -> Response | None:
    """The refusal of a read by someone who may not read (None: they may)."""
    if who is None and not web.open_reading:
        return JSONResponse({"error": "sign in first (see `society web`'s output)"}, 401)
    if who is not None and run_id is not None and not who.may_use(run_id):
        return JSONResponse({"error": f"you are signed in for run {who.run_id} only"}, 403)
    return None


def _session_cookie(response: Response, session: str) -> Response:
    response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
    return response


def make_app(web: WebApp, allowed_hosts: list[str] | None = None) -> Starlette:
    """The Starlette application over ``web``; requests whose Host is not in
    ``allowed_hosts`` are refused (default: the loopback names)."""
    access = web.access

    async def index(request: Request) -> Response:
        return HTMLResponse(_html("index.html"))

    async def runs(request: Request) -> Response:
        who = access.who(request)
        refused = _unsigned(web, who)
        if refused is not None:
            return refused
        found = [r for r in web.runs() if who is None or who.may_use(r["id"])]
        return JSONResponse({"runs": found, "runs_dir": str(web.runs_dir)})

    async def me(request: Request) -> Response:
        who = access.who(request)
        return JSONResponse(
            {"name": who.name if who else None, "run": who.run_id if who else None,
             "open_reading": web.open_reading}
        )  # fmt: skip

    async def owner_login(request: Request) -> Response:
        session = access.redeem(request.query_params.get("key", ""))
        if session is None:
            text = (
                "This sign-in link is wrong or was used already. Each link `society web` "
                "prints works once: restart `society web` for a new one."
            )
            return HTMLResponse(f"<!doctype html><p>{text}</p>", status_code=403)
        return _session_cookie(RedirectResponse("/", status_code=303), session)

    async def login(request: Request) -> Response:
        refused = refusal(request)
        if refused is not None:
            return JSONResponse({"error": refused}, status_code=403)
        try:
            body = await request.json()
            credential = Credential(
                run_id=str(body["run_id"]), sender=str(body["sender"]),
                user=str(body["user"]), password=str(body["password"]),
            )  # fmt: skip
        except (ValueError, KeyError, TypeError):
            text = "send the credential file `society invite` wrote for you"
            return JSONResponse({"error": text}, status_code=400)
        session = access.sign_in(credential)
        if session is None:
            text = "not a credential this run issued to a person"
            return JSONResponse({"error": text}, status_code=403)
        who = access.who_of(session)
        answer = JSONResponse({"name": who.name, "run": who.run_id})
        return _session_cookie(answer, session)

    async def logout(request: Request) -> Response:
        refused = refusal(request)
        if refused is not None:
            return JSONResponse({"error": refused}, status_code=403)
        access.sign_out(request)
        answer = JSONResponse({"ok": "signed out"})
        answer.delete_cookie(COOKIE, path="/")
        return answer

    async def run_page(request: Request) -> Response:
        return HTMLResponse(_html("run.html"))

    async def run_json(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        who = access.who(request)
        refused = _unsigned(web, who, run_id)
        if refused is not None:
            return refused
        try:
            page = await web.page(run_id)
        except (SocietyError, BusError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)
        data = page.to_json(writable=not web.read_only(run_id))
        data["person"] = who.name if who else None
        return JSONResponse(data)

    async def prompt(request: Request) -> Response:
        run_id, sha = request.path_params["run_id"], request.path_params["sha"]
        refused = _unsigned(web, access.who(request), run_id)
        if refused is not None:
            return refused
        if not sha.isalnum():
            return JSONResponse({"error": "bad prompt id"}, status_code=400)
        path = web.folder_of(subjects.check_token(run_id, "run id")) / "prompts" / f"{sha}.json"
        if not path.is_file():
            return JSONResponse({"error": "no such prompt in this run"}, status_code=404)
        return Response(path.read_text(), media_type="application/json")

    async def act(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        refused = refusal(request)
        if refused is not None:
            return JSONResponse({"error": refused}, status_code=403)
        who = access.who(request)
        if who is None:
            text = "sign in first: open the link `society web` printed, or use your credential"
            return JSONResponse({"error": text}, status_code=401)
        if not who.may_use(run_id):
            return JSONResponse({"error": f"you may act on run {who.run_id} only"}, 403)
        if web.read_only(run_id):
            return JSONResponse({"error": "an opened log is read-only"}, status_code=403)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body is a JSON object"}, status_code=400)
        named = body.get("name")
        if named not in (None, "", who.name):
            text = f"you are signed in as {who.name}; you cannot act as {named}"
            return JSONResponse({"error": text}, status_code=403)
        try:
            done = await web.act(run_id, who, body)
        except (SocietyError, BusError, TimeoutError) as exc:
            return JSONResponse({"error": str(exc) or type(exc).__name__}, status_code=400)
        return JSONResponse({"ok": done})

    hosts = allowed_hosts or ["127.0.0.1", "localhost", "::1", "[::1]"]
    return Starlette(
        routes=[
            Route("/", index),
            Route("/login", owner_login),
            Route("/api/me", me),
            Route("/api/login", login, methods=["POST"]),
            Route("/api/logout", logout, methods=["POST"]),
            Route("/api/runs", runs),
            Route("/runs/{run_id}", run_page),
            Route("/api/runs/{run_id}", run_json),
            Route("/api/runs/{run_id}/prompts/{sha}", prompt),
            Route("/api/runs/{run_id}/act", act, methods=["POST"]),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )


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
