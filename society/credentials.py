"""A run's own identities: one NATS user per role instance and per person, and the owner.

``society run`` starts its embedded nats-server with a config made here: users with
passwords and permissions (NATS's own mechanism), each allowed only what its role may do
in this run (`bus.permissions.identity_permissions`); the owner (the runner) has no
limits. Every identity's credential is a JSON file in ``runs/<id>/creds/`` (owner-only),
and `invite` adds a person to a running server (the config is rewritten and the server
told to reload it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bus import ConnectOptions, subjects
from bus.envelope import signature
from bus.permissions import identity_permissions, inbox_prefix, server_config
from society.connect import connect_options
from society.errors import RunNotFound

__all__ = ["OWNER", "Credential", "RunAccess", "RunCredentials", "load_credential"]

OWNER = "runner/0"
"""The sender (and identity) of the process that owns the run: its runner."""


@dataclass(frozen=True)
class Credential:
    """One identity of one run: who it speaks as, and how it logs in."""

    run_id: str
    sender: str
    """``role/instance`` (a person: ``human/<name>``)."""
    user: str
    password: str

    @property
    def role(self) -> str:
        """The identity's role."""
        return self.sender.partition("/")[0]

    def options(self, base: ConnectOptions) -> ConnectOptions:
        """``base`` (servers, TLS) logged in as this identity, with its own inbox."""
        return dataclasses.replace(
            base,
            user=self.user,
            password=self.password,
            token=None,
            inbox_prefix=inbox_prefix(self.user),
        )

    def to_json(self) -> dict[str, str]:
        """The credential file's content."""
        return {
            "run_id": self.run_id,
            "sender": self.sender,
            "user": self.user,
            "password": self.password,
        }


def load_credential(path: Path) -> Credential:
    """Read a credential file; `RunNotFound` says what is wrong with it."""
    try:
        data = json.loads(path.read_text())
        return Credential(
            run_id=str(data["run_id"]),
            sender=str(data["sender"]),
            user=str(data["user"]),
            password=str(data["password"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"{path} is not a society credential file ({exc})"
        raise RunNotFound(msg) from None


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` readable by its owner only (created so: never world-readable)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    path.chmod(0o600)


class RunCredentials:
    """The credentials of one run, kept in ``<run dir>/creds/``."""

    def __init__(self, run_dir: Path, run_id: str) -> None:
        self.run_dir = run_dir
        self.run_id = subjects.check_token(run_id, "run id")
        self.folder = run_dir / "creds"
        self.config_path = self.folder / "nats-server.json"

    def _path(self, sender: str) -> Path:
        return self.folder / f"{signature(sender)}.json"

    def issue(self, sender: str) -> Credential:
        """The credential of ``sender``, made (with a fresh password) if it has none."""
        path = self._path(sender)
        if path.is_file():
            return load_credential(path)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.folder.chmod(0o700)
        cred = Credential(self.run_id, sender, signature(sender), secrets.token_urlsafe(24))
        _write_private(path, json.dumps(cred.to_json(), indent=2) + "\n")
        return cred

    def all(self) -> list[Credential]:
        """Every credential issued so far."""
        if not self.folder.is_dir():
            return []
        return [
            load_credential(p) for p in sorted(self.folder.glob("*.json")) if p != self.config_path
        ]

    def path_of(self, sender: str) -> Path:
        """Where ``sender``'s credential file is (issued or not)."""
        return self._path(sender)

    def write_config(self) -> Path:
        """The server config holding every identity issued so far; returns its path."""
        users: list[dict[str, Any]] = []
        for cred in self.all():
            user: dict[str, Any] = {"user": cred.user, "password": cred.password}
            if cred.sender != OWNER:
                user["permissions"] = identity_permissions(self.run_id, cred.role, cred.sender)
            users.append(user)
        _write_private(self.config_path, server_config({}, users=users))
        return self.config_path

    def reload(self, pid: int) -> None:
        """Rewrite the config and tell the running server (``pid``) to load it."""
        self.write_config()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGHUP)

    def invite(self, person: str) -> tuple[Credential, bool]:
        """A person's credential, issued and loaded into the run's server if new; returns
        it and whether it is new. Only the run's owner can: the folder is theirs alone."""
        sender = f"human/{subjects.check_token(person, 'person')}"
        if self.path_of(sender).is_file():
            return self.issue(sender), False
        if not os.access(self.folder, os.W_OK):
            msg = (
                f"{person} has no credential for run {self.run_id} and this account cannot issue "
                f"one: ask the run's owner to run `society invite {self.run_id} --name {person}`"
            )
            raise RunNotFound(msg)
        cred = self.issue(sender)
        pid = _server_pid(self.run_dir)
        if pid is not None:
            self.reload(pid)
        return cred, True


def _server_pid(run_dir: Path) -> int | None:
    """The pid of the run's embedded server, from its ``server.json`` (None: not known)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return int(json.loads((run_dir / "server.json").read_text())["pid"])
    return None


@dataclass(frozen=True)
class RunAccess:
    """How each identity of a run connects: with its own credential on the run's own
    server, or with the role's shared login on a server given with ``--nats``."""

    url: str
    credentials: RunCredentials | None = None

    def connect(self, sender: str) -> ConnectOptions:
        """Connection options for ``sender`` (``role/instance``, or `OWNER`)."""
        role = sender.partition("/")[0]
        base = connect_options(self.url, role="manager" if sender == OWNER else role)
        if self.credentials is None:
            return base
        return self.credentials.issue(sender).options(base)
