"""What a person attached to a run can type, parsed into typed commands.

One command a line, so a pipe or a pseudo-terminal can drive it as well as a person.
A question is named by its number in the conversation (``#2``) or its id; with only
one question of the fitting kind pending, the name can be left out.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from society.errors import SocietyError

__all__ = [
    "HELP",
    "Approve",
    "Command",
    "CommandError",
    "Rate",
    "Reject",
    "Reply",
    "Say",
    "Simple",
    "Steer",
    "parse_command",
]

HELP = """commands (one a line):
  approve [#n]                 approve the pending plan
  reject [#n] <reason>         reject the pending plan; the planner gets the reason
  answer [#n] <text>           answer a question (#n or its id; optional when only one waits)
  say [@role] <text>           a remark to one role (@planner, @researcher, ...) or to everyone
  pause | resume               stop / restart handing out tasks (work in flight goes on)
  abort [reason]               end the run now (partial results are kept)
  rate <task> <1-5> [expect=V|check=RE] [comment]
                               rate a task's result (feedback in long-term memory; with
                               the right answer, `society rate RUN --collect` makes the
                               run a case to train on)
  pending | who | help | quit  what waits for an answer, who is attached, this text, leave"""


class CommandError(SocietyError, ValueError):
    """A line that is not a valid command; the message says how to write it."""


@dataclass(frozen=True)
class Approve:
    """Approve a pending plan."""

    target: str | None


@dataclass(frozen=True)
class Reject:
    """Reject a pending plan, with the reason the planner will read."""

    target: str | None
    reason: str


@dataclass(frozen=True)
class Reply:
    """Answer a pending question."""

    target: str | None
    text: str


@dataclass(frozen=True)
class Say:
    """A remark to one role, or to everyone."""

    to: str | None
    text: str


@dataclass(frozen=True)
class Steer:
    """Pause, resume or abort the run."""

    action: Literal["pause", "resume", "abort"]
    reason: str = ""


@dataclass(frozen=True)
class Rate:
    """Rate a task's result from 1 to 5."""

    task_id: str
    score: int
    comment: str = ""
    expect: str | None = None
    check: str | None = None


@dataclass(frozen=True)
class Simple:
    """A command that sends nothing."""

    what: Literal["help", "quit", "pending", "who"]


Command = Approve | Reject | Reply | Say | Steer | Rate | Simple


def _target(rest: str, known: Collection[str]) -> tuple[str | None, str]:
    """Split a leading ``#n`` or known question id off ``rest``."""
    head, _, tail = rest.partition(" ")
    if (head.startswith("#") and head[1:].isdigit()) or head in known:
        return head, tail.strip()
    return None, rest


def parse_command(line: str, known_ids: Collection[str] = ()) -> Command | None:
    """Parse one line (None for a blank one); raises `CommandError` with the usage."""
    line = line.strip()
    if not line:
        return None
    word, _, rest = line.partition(" ")
    word, rest = word.lower(), rest.strip()
    match word:
        case "approve" | "ok":
            target, extra = _target(rest, known_ids)
            if extra:
                msg = "approve takes only a question: approve [#n]"
                raise CommandError(msg)
            return Approve(target)
        case "reject":
            target, reason = _target(rest, known_ids)
            if not reason:
                msg = "say why: reject [#n] <reason> (the planner reads the reason)"
                raise CommandError(msg)
            return Reject(target, reason)
        case "answer" | "a":
            target, text = _target(rest, known_ids)
            if not text:
                msg = "answer [#n] <text>"
                raise CommandError(msg)
            return Reply(target, text)
        case "say":
            to: str | None = None
            if rest.startswith("@"):
                head, _, rest = rest.partition(" ")
                to, rest = head[1:], rest.strip()
                if not to:
                    msg = "name the role after @: say @planner <text>"
                    raise CommandError(msg)
            if not rest:
                msg = "say [@role] <text>"
                raise CommandError(msg)
            return Say(to, rest)
        case "pause" | "resume" | "abort":
            if rest and word != "abort":
                msg = f"{word} takes no arguments"
                raise CommandError(msg)
            return Steer(word, rest)
        case "rate":
            parts = rest.split(" ", 2)
            if len(parts) < 2 or not parts[1].isdigit() or not 1 <= int(parts[1]) <= 5:
                msg = "rate <task> <1-5> [comment]"
                raise CommandError(msg)
            comment = parts[2].strip() if len(parts) > 2 else ""
            said, _, after = comment.partition(" ")
            key, eq, value = said.partition("=")
            if eq and key in ("expect", "check") and value:
                expected = value if key == "expect" else None
                pattern = value if key == "check" else None
                return Rate(parts[0], int(parts[1]), after.strip(), expected, pattern)
            return Rate(parts[0], int(parts[1]), comment)
        case "help" | "?" | "quit" | "exit" | "pending" | "who":
            simple = {"?": "help", "exit": "quit"}.get(word, word)
            return Simple(simple)  # type: ignore[arg-type]
        case _:
            msg = f"unknown command {word!r}; type help for the list"
            raise CommandError(msg)
