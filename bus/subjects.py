"""Every NATS subject the society uses is built and parsed here, and nowhere else.

Subjects have the shape ``society.<run_id>.<channel>[.<role>]``; a channel may itself
hold a dot (``plan.request``, ``human.ask``). Tokens are validated so that a run id or
role name can never inject a wildcard or an extra level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bus.errors import SubjectError

__all__ = [
    "ALL_RUNS",
    "JS_ACK",
    "JS_API",
    "LIMITS_PREFIX",
    "PREFIX",
    "ROLL_PREFIX",
    "Channel",
    "ParsedSubject",
    "any_run",
    "check_token",
    "consumer_name",
    "js_ack",
    "js_consumer_create",
    "js_consumer_info",
    "js_consumer_next",
    "js_direct_get",
    "js_msg_get",
    "js_stream_info",
    "limits_subject",
    "limits_wildcard",
    "matches",
    "parse",
    "roll_call",
    "run_of_consumer",
    "run_wildcard",
    "safe_token",
    "subject",
]

PREFIX = "society"
LIMITS_PREFIX = "society_limits"
ROLL_PREFIX = "society_roll"
"""Requests to a run's shared rate limits and budget (`bus.limits`): outside ``society.>``,
so they are not in the run log."""
ALL_RUNS = f"{PREFIX}.>"

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class Channel(StrEnum):
    """The channels of a run; each payload type is published on exactly one."""

    GOAL = "goal"
    PLAN_REQUEST = "plan.request"
    PLAN = "plan"
    PLAN_DECISION = "plan.decision"
    TASK = "task"
    RESULT = "result"
    EXEC = "exec"
    HUMAN_ASK = "human.ask"
    HUMAN_ANSWER = "human.answer"
    CHAT = "chat"
    CRITIQUE = "critique"
    LESSON = "lesson"
    USAGE = "usage"
    CONTROL = "control"
    PRESENCE = "presence"
    FINAL = "final"
    DEAD_LETTER = "deadletter"


# Longest channels first, so that "plan.request" is not parsed as "plan" + role "request".
_CHANNELS_BY_LENGTH = sorted(Channel, key=lambda c: -len(c.value))


def check_token(value: str, what: str) -> str:
    """Return ``value`` if it is a safe single subject token, else raise `SubjectError`."""
    if not _TOKEN.match(value):
        msg = f"{what} {value!r} is not a valid subject token (letters, digits, '_' and '-' only)"
        raise SubjectError(msg)
    return value


def safe_token(text: str, *, fill: str = "-", max_len: int = 64, fallback: str = "0") -> str:
    """``text`` made into a valid subject token: unsafe runs become ``fill``, cut to
    ``max_len``; ``fallback`` when nothing is left (names of people, hosts, connections)."""
    token = _UNSAFE.sub(fill, text).strip(fill)[:max_len]
    return token or fallback


def subject(run_id: str, channel: Channel, role: str | None = None) -> str:
    """Build ``society.<run_id>.<channel>[.<role>]``."""
    check_token(run_id, "run id")
    if role is None:
        return f"{PREFIX}.{run_id}.{channel.value}"
    check_token(role, "role")
    return f"{PREFIX}.{run_id}.{channel.value}.{role}"


def run_wildcard(run_id: str, channel: Channel | None = None) -> str:
    """Subject pattern for everything of a run, or for one channel of it (any role)."""
    check_token(run_id, "run id")
    if channel is None:
        return f"{PREFIX}.{run_id}.>"
    return f"{PREFIX}.{run_id}.{channel.value}.*"


def any_run(channel: Channel, role: str | None = None) -> str:
    """Pattern for one channel (of one role, or of any role with ``"*"``) in every run."""
    if role is None:
        return f"{PREFIX}.*.{channel.value}"
    if role != "*":
        check_token(role, "role")
    return f"{PREFIX}.*.{channel.value}.{role}"


_CONSUMER_SEP = "--"


def consumer_name(run_id: str, queue: str) -> str:
    """The durable JetStream consumer of a run's work queue ``queue``: ``<run>--<queue>``."""
    return f"{check_token(run_id, 'run id')}{_CONSUMER_SEP}{check_token(queue, 'queue')}"


def run_of_consumer(name: str) -> str | None:
    """The run id a `consumer_name` belongs to (None for other consumers)."""
    run_id, sep, _ = name.partition(_CONSUMER_SEP)
    return run_id if sep and _TOKEN.match(run_id) else None


# -- JetStream's own API subjects, for per-role permissions (see bus.permissions) ------------

JS_API = "$JS.API"
JS_ACK = "$JS.ACK"


def js_consumer_create(stream: str, filter_pattern: str) -> str:
    """Creating (or updating) a consumer of ``stream`` filtered on ``filter_pattern``."""
    return f"{JS_API}.CONSUMER.CREATE.{stream}.*.{filter_pattern}"


def js_consumer_info(stream: str) -> str:
    """Reading any consumer's info on ``stream``."""
    return f"{JS_API}.CONSUMER.INFO.{stream}.*"


def js_consumer_next(stream: str) -> str:
    """Pulling messages from any consumer of ``stream``."""
    return f"{JS_API}.CONSUMER.MSG.NEXT.{stream}.*"


def js_stream_info(stream: str) -> str:
    """Reading ``stream``'s info (which runs it holds)."""
    return f"{JS_API}.STREAM.INFO.{stream}"


def js_msg_get(stream: str) -> str:
    """Reading one stored message of ``stream`` (a run's goal)."""
    return f"{JS_API}.STREAM.MSG.GET.{stream}"


def js_direct_get(stream: str) -> str:
    """Direct reads of ``stream``'s messages."""
    return f"{JS_API}.DIRECT.GET.{stream}.>"


def js_ack(stream: str) -> str:
    """Acknowledging (and heartbeating) deliveries of ``stream``'s consumers."""
    return f"{JS_ACK}.{stream}.>"


@dataclass(frozen=True, slots=True)
class ParsedSubject:
    """The parts of a society subject."""

    run_id: str
    channel: Channel
    role: str | None = None


def parse(value: str) -> ParsedSubject:
    """Inverse of `subject`; raises `SubjectError` for anything that is not ours."""
    head, _, rest = value.partition(".")
    run_id, _, tail = rest.partition(".")
    if head != PREFIX or not run_id or not tail:
        msg = f"{value!r} is not a society subject"
        raise SubjectError(msg)
    for channel in _CHANNELS_BY_LENGTH:
        name = channel.value
        if tail == name:
            return ParsedSubject(run_id, channel)
        if tail.startswith(name + ".") and "." not in tail[len(name) + 1 :]:
            return ParsedSubject(run_id, channel, tail[len(name) + 1 :])
    msg = f"{value!r} has an unknown channel"
    raise SubjectError(msg)


def limits_subject(run_id: str, role: str) -> str:
    """Where ``role``'s processes ask the run's limits host: ``society_limits.<run>.<role>``
    (the role token lets permissions stop one role from settling for another)."""
    return f"{LIMITS_PREFIX}.{check_token(run_id, 'run id')}.{check_token(role, 'role')}"


def roll_call(run_id: str = "*") -> str:
    """Where a manager that just started asks the run's role instances to say they are
    there (outside ``society.>``: not in the run log)."""
    if run_id != "*":
        check_token(run_id, "run id")
    return f"{ROLL_PREFIX}.{run_id}"


def limits_wildcard(run_id: str = "*") -> str:
    """Every request to the limits of one run (or of any run, with ``*``)."""
    if run_id != "*":
        check_token(run_id, "run id")
    return f"{LIMITS_PREFIX}.{run_id}.*"


def matches(pattern: str, value: str) -> bool:
    """NATS wildcard match: ``*`` is one token, a final ``>`` is one or more tokens."""
    pat = pattern.split(".")
    toks = value.split(".")
    for i, p in enumerate(pat):
        if p == ">":
            return len(toks) > i
        if i >= len(toks) or (p != "*" and p != toks[i]):
            return False
    return len(pat) == len(toks)
