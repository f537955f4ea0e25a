"""The web view's routes: the page, the JSON views of runs, prompts, and a signed-in
person's actions (each request checked as `society.web.access` says), over a `WebApp`."""

from __future__ import annotations

from importlib import resources

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bus import BusError, subjects
from society.credentials import Credential
from society.errors import SocietyError
from society.web.access import COOKIE, SignedIn, refusal
from society.web.state import WebApp

__all__ = ["make_app"]


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
