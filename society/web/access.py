"""Who may use the web view, and the checks every request passes.

- **The owner** (the person who started ``society web``) signs in once through the link it
  prints: ``/login?key=<one-time secret>``. The page then holds a session cookie
  (``HttpOnly``, ``SameSite=Strict``); the owner acts under their own name (``--name``,
  default the login name) with the credential the run's folder issues them, as
  ``society attach`` does.
- **An invited person** signs in with the credential file ``society invite`` wrote for
  them (``POST /api/login`` with its JSON): it must be one the run issued. They may read
  and act on that run only, and every action is signed with their own credential.

The name on an action is always the session's, never one from the request. Requests
whose ``Host`` is not the address the server listens on are refused (DNS rebinding:
starlette's `TrustedHostMiddleware`); a request that changes something must come from the
page's own origin (``Origin``, else ``Referer``) and be ``application/json``, so another
site cannot make a browser send it. Reading needs a session too once the server listens
beyond loopback.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import Request

from society.credentials import Credential, RunCredentials, load_credential
from society.exposure import is_loopback

__all__ = ["COOKIE", "Access", "SignedIn", "is_loopback", "refusal"]

COOKIE = "society_session"


@dataclass(frozen=True)
class SignedIn:
    """A signed-in person."""

    name: str
    credential: Credential | None = None
    """An invited person's own credential (None: the owner, issued from the run folder)."""

    @property
    def run_id(self) -> str | None:
        """The one run an invited person may use (None: the owner, every run)."""
        return self.credential.run_id if self.credential else None

    def may_use(self, run_id: str) -> bool:
        """Whether this person may read and act on ``run_id``."""
        return self.run_id is None or self.run_id == run_id


class Access:
    """The owner's one-time sign-in key and the sessions of signed-in people."""

    def __init__(self, owner: str, runs_dir: Path) -> None:
        self.owner = owner
        self.runs_dir = runs_dir
        self._key: str | None = secrets.token_urlsafe(24)
        self._sessions: dict[str, SignedIn] = {}

    @property
    def owner_key(self) -> str | None:
        """The key of the owner's sign-in link, until it is used."""
        return self._key

    def redeem(self, key: str) -> str | None:
        """A new owner session for the one-time ``key`` (None when wrong or used)."""
        if self._key is None or not hmac.compare_digest(key.encode(), self._key.encode()):
            return None
        self._key = None
        return self._open(SignedIn(self.owner))

    def sign_in(self, credential: Credential) -> str | None:
        """A new session for an invited person whose ``credential`` the run issued (None:
        not a credential of that run, or not a person's)."""
        if credential.role != "human":
            return None
        try:
            issued = RunCredentials(self.runs_dir / credential.run_id, credential.run_id)
            path = issued.path_of(credential.sender)
        except Exception:  # a run id that is not a token: no such run
            return None
        if not path.is_file():
            return None
        try:
            known = load_credential(path)
        except Exception:
            return None
        same = hmac.compare_digest(known.password.encode(), credential.password.encode())
        if not same or known.user != credential.user:
            return None
        return self._open(SignedIn(credential.sender.partition("/")[2], credential))

    def _open(self, who: SignedIn) -> str:
        session = secrets.token_urlsafe(32)
        self._sessions[session] = who
        return session

    def who_of(self, session: str) -> SignedIn:
        """The person of an open ``session``."""
        return self._sessions[session]

    def who(self, request: Request) -> SignedIn | None:
        """The person whose session cookie ``request`` carries (None: nobody)."""
        session = request.cookies.get(COOKIE)
        return self._sessions.get(session) if session else None

    def sign_out(self, request: Request) -> None:
        """End the session of ``request``."""
        session = request.cookies.get(COOKIE)
        if session:
            self._sessions.pop(session, None)


def refusal(request: Request) -> str | None:
    """Why a request that changes something is refused (None: it may go on): it must come
    from the page's own origin and carry JSON."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        if referer is None:
            return "no Origin or Referer: only the page itself may act"
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    if origin != own:
        return f"a request from {origin} may not act here (only {own} may)"
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return f"send application/json, not {kind or 'no content type'}"
    return None
