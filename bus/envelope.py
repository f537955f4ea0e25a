"""The one message type on the bus, its ids, and the lean JSON codec.

Envelopes are built from payloads that are already validated, so `Envelope.new` uses
``model_construct`` (no second validation) and `encode` calls the compiled serializer
directly; `decode` validates JSON bytes in one pass. That keeps the codec cheap next to
nats-py's own per-message work (see ``bench/bus.py``).
"""

from __future__ import annotations

import itertools
import secrets
import time
from typing import Any, Literal

import pydantic_core
from pydantic import BaseModel, ConfigDict, TypeAdapter

from bus import subjects
from bus.payloads import Chat, Payload, TaskAssignment

__all__ = [
    "ENVELOPE_ADAPTER",
    "SCHEMA_VERSION",
    "Envelope",
    "decode",
    "encode",
    "encode_new",
    "new_id",
    "sender_name",
    "signature",
    "subject_for",
    "subject_of",
]

SCHEMA_VERSION = 1

_PROCESS_TAG = f"{secrets.randbelow(1 << 24):06x}"
_counter = itertools.count()
_time_ns = time.time_ns


def new_id(now_ns: int | None = None) -> str:
    """A unique id that sorts by creation time: 16 hex of ns, 6 of process tag, 6 of counter."""
    t = _time_ns() if now_ns is None else now_ns
    return "%016x%s%06x" % (t, _PROCESS_TAG, next(_counter) & 0xFFFFFF)  # noqa: UP031 - fastest


def sender_name(role: str, instance: str = "0") -> str:
    """The ``sender`` of a role instance: ``role/instance`` (both subject-safe tokens)."""
    return f"{subjects.check_token(role, 'role')}/{subjects.check_token(instance, 'instance')}"


class Envelope(BaseModel):
    """Every message on the bus: routing and causality around one typed payload.

    Field order is the wire order; the fields that are constant for a connection come
    first so that `encode_new` can reuse their encoding.
    """

    # Strings are not interned: envelopes are decoded once, so the cache only costs time.
    model_config = ConfigDict(extra="forbid", frozen=True, cache_strings=False)

    schema_version: Literal[1] = 1
    run_id: str
    sender: str
    """``role/instance`` of the sender, e.g. ``coder/1``."""
    id: str
    """Unique, time-ordered message id."""
    ts: int
    """Unix time in microseconds when the message was made."""
    parent_id: str | None = None
    """The message this one answers or was caused by."""
    task_id: str | None = None
    payload: Payload

    @property
    def role(self) -> str:
        """The sender's role."""
        return self.sender.partition("/")[0]

    @property
    def instance(self) -> str:
        """The sender's instance."""
        return self.sender.partition("/")[2]

    @classmethod
    def new(
        cls,
        run_id: str,
        sender: str,
        payload: Payload,
        *,
        parent_id: str | None = None,
        task_id: str | None = None,
    ) -> Envelope:
        """Wrap an already-validated payload without validating it again."""
        t = _time_ns()
        env = _new_object(cls)
        _set(
            env,
            "__dict__",
            {
                "schema_version": 1,
                "run_id": run_id,
                "sender": sender,
                "id": new_id(t),
                "ts": t // 1000,
                "parent_id": parent_id,
                "task_id": task_id,
                "payload": payload,
            },
        )
        _set(env, "__pydantic_fields_set__", _ALL_FIELDS)
        _set(env, "__pydantic_extra__", None)
        _set(env, "__pydantic_private__", None)
        return env

    def reply(self, sender: str, payload: Payload, *, task_id: str | None = None) -> Envelope:
        """A new envelope caused by this one (same run, parent link, task carried over)."""
        return Envelope.new(
            self.run_id,
            sender,
            payload,
            parent_id=self.id,
            task_id=task_id if task_id is not None else self.task_id,
        )


_new_object = object.__new__
_set = object.__setattr__
_ALL_FIELDS = frozenset(Envelope.model_fields)
_json_str = pydantic_core.to_json
_prefixes: dict[tuple[str, str], str] = {}


def encode_new(
    run_id: str,
    sender: str,
    payload: Payload,
    parent_id: str | None = None,
    task_id: str | None = None,
) -> tuple[str, bytes]:
    """Encode a new envelope straight to bytes (no Envelope object); returns (id, bytes).

    The bytes are exactly ``encode(decode(bytes))``: the publish hot path of `Bus.send`.
    """
    prefix = _prefixes.get((run_id, sender))
    if prefix is None:
        prefix = (
            '{"schema_version":1,"run_id":'
            + _json_str(run_id).decode()
            + ',"sender":'
            + _json_str(sender).decode()
            + ',"id":"'
        )
        if len(_prefixes) < 4096:
            _prefixes[(run_id, sender)] = prefix
    t = _time_ns()
    mid = "%016x%s%06x" % (t, _PROCESS_TAG, next(_counter) & 0xFFFFFF)  # noqa: UP031
    parent = "null" if parent_id is None else _json_str(parent_id).decode()
    task = "null" if task_id is None else _json_str(task_id).decode()
    head = f'{prefix}{mid}","ts":{t // 1000},"parent_id":{parent},"task_id":{task},"payload":'
    return mid, head.encode() + payload.__pydantic_serializer__.to_json(payload) + b"}"


ENVELOPE_ADAPTER: TypeAdapter[Envelope] = TypeAdapter(Envelope)
_serializer = Envelope.__pydantic_serializer__
_validate_json = Envelope.__pydantic_validator__.validate_json


def encode(envelope: Envelope) -> bytes:
    """Serialize an envelope to compact JSON bytes."""
    return _serializer.to_json(envelope)


def decode(data: bytes | str) -> Envelope:
    """Validate JSON into an envelope; raises pydantic's ``ValidationError`` if it is not one."""
    result: Any = _validate_json(data)
    return result  # type: ignore[no-any-return]


def subject_for(envelope: Envelope) -> str:
    """The subject an envelope is published on, derived from its payload and sender."""
    return subject_of(envelope.run_id, envelope.payload, envelope.sender)


_SIGNED = frozenset({subjects.Channel.HUMAN_ANSWER, subjects.Channel.CONTROL})
_signatures: dict[str, str] = {}


def signature(sender: str) -> str:
    """The subject token of a sender (``human/ada`` -> ``human-ada``) on signed channels."""
    token = _signatures.get(sender)
    if token is None:
        token = subjects.check_token(sender.replace("/", "-", 1), "sender")
        if len(_signatures) < 4096:
            _signatures[sender] = token
    return token


def subject_of(run_id: str, payload: Payload, sender: str) -> str:
    """The subject a payload of ``run_id`` from ``sender`` is published on.

    Tasks go to their role, chat to its addressee; answers and control are signed with
    their sender, so server permissions can let only that identity publish them.
    """
    role: str | None = None
    channel = payload.CHANNEL
    if isinstance(payload, TaskAssignment):
        role = payload.task.role
    elif isinstance(payload, Chat):
        role = payload.to
    elif channel in _SIGNED:
        role = signature(sender)
    key = (run_id, channel, role)
    found = _subjects.get(key)
    if found is None:  # built (and its tokens checked) once per run, channel and role
        found = subjects.subject(run_id, channel, role)
        if len(_subjects) < 4096:
            _subjects[key] = found
    return found


_subjects: dict[tuple[str, subjects.Channel, str | None], str] = {}
