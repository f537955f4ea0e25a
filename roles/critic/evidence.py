"""What the critic's detectors share: a finding with its evidence, the detector protocol,
and how messages are read (error signatures, content words, what counts as content)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Protocol

from bus import Envelope
from bus.payloads import Chat, ExecRequest, TaskResult
from roles.memory import fts_query

__all__ = ["Detector", "Finding", "content", "error_signature", "role_chat", "words"]


@dataclass(frozen=True)
class Finding:
    """A detector's verdict with its evidence."""

    detector: str
    verdict: str
    summary: str
    evidence: tuple[str, ...]
    recommendation: str = ""


_NUM = re.compile(r"\d+")
_ADDR = re.compile(r"0x[0-9a-f]+", re.I)


def error_signature(stderr: str) -> str:
    """The last line of a traceback with numbers and addresses blanked."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    return _NUM.sub("N", _ADDR.sub("ADDR", last))[:300]


_SUFFIXES = ("ing", "ed", "ly", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    """Content words of a text, crudely stemmed (for drift)."""
    return {_stem(w.strip('"')) for w in fts_query(text, limit=200).split(" OR ") if w}


def role_chat(env: Envelope) -> bool:
    """A chat between roles: what people say (or are told) steers the run, it is no loop."""
    p = env.payload
    return isinstance(p, Chat) and env.role != "human" and p.to != "human"


def content(env: Envelope) -> str | None:
    p = env.payload
    match p:
        case ExecRequest():
            return p.code
        case Chat() if role_chat(env):
            return p.text
        case TaskResult() if p.status == "failed":
            return p.error or ""
        case TaskResult():
            return json.dumps(p.outputs, sort_keys=True)
        case _:
            return None


class Detector(Protocol):
    """Folds messages in as they arrive; names what it sees when asked."""

    def add(self, env: Envelope) -> None: ...

    def findings(self) -> list[Finding]: ...
