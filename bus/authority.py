"""Who may say what: the roster's cards (`bus.roster`: which senders publish on which
channels), and the check every receiver makes before a message reaches a handler.

The server's permissions (`bus.permissions`) are made from the same table, so what a
connection may publish and what a receiver accepts cannot drift apart. A message is
accepted only when it is on the subject its payload belongs on (which also names the run),
and its sender's role may publish there. Steering by people and roles — answers and
control — travels on subjects signed with the sender (``control.human-ada``), which the
server lets only that identity publish; a person's ``by`` must be their own name.
"""

from __future__ import annotations

from bus.envelope import Envelope, subject_for
from bus.errors import SubjectError
from bus.payloads import Answer, Chat, Control, Rating, TaskAssignment
from bus.roster import EVERYONE, ROSTER
from bus.subjects import Channel

__all__ = [
    "EVERYONE",
    "may_publish",
    "misfit",
]


def may_publish(role: str, channel: Channel) -> bool:
    """Whether a sender of ``role`` may publish on ``channel`` (`bus.roster`)."""
    return ROSTER.may_publish(role, channel)


def misfit(subject: str, env: Envelope) -> str | None:
    """Why ``env`` may not be taken from ``subject``, or None when it may."""
    payload = env.payload
    role, _, instance = env.sender.partition("/")
    if role == "human" and isinstance(payload, _SPOKEN) and payload.by != instance:
        return f"{env.sender!r} may not speak as {payload.by!r}"
    token = payload.task.role if isinstance(payload, TaskAssignment) else None
    if isinstance(payload, Chat):
        token = payload.to
    key = (subject, env.run_id, env.sender, payload.type, token)
    if _judged_by[0] != ROSTER.version:  # a role enrolled since: judge again
        _verdicts.clear()
        _judged_by[0] = ROSTER.version
    verdict = _verdicts.get(key, _UNJUDGED)
    if verdict is _UNJUDGED:  # the same few keys come again and again: judge each once
        verdict = _judge(subject, env)
        if len(_verdicts) < 10_000:
            _verdicts[key] = verdict
    return verdict  # type: ignore[return-value]


_UNJUDGED = object()
_verdicts: dict[tuple[str, str, str, str, str | None], object] = {}
_judged_by = [ROSTER.version]
"""The roster's version the cached verdicts were judged by."""


def _judge(subject: str, env: Envelope) -> str | None:
    """`misfit` for a subject, run, sender and payload kind not seen yet."""
    try:
        expected = subject_for(env)
    except SubjectError as exc:
        return str(exc)
    if subject != expected:
        if env.run_id not in subject.split(".", 2)[1:2]:
            return f"an envelope of run {env.run_id!r} on another run's subject"
        return f"a {env.payload.type} belongs on {expected}"
    if not may_publish(env.sender.partition("/")[0], env.payload.CHANNEL):
        return f"{env.sender!r} may not send a {env.payload.type}"
    return None


_SPOKEN = (Answer, Rating, Chat, Control)
"""Payloads that name the person they come from (``by``)."""
