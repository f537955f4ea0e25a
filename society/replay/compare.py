"""Is a re-run identical to its recording? Compares two runs' message streams.

Each message becomes a canonical form: ids, timestamps, run ids, role instances and
measured latencies are left out, durations written into text are blanked, and the parent
link and message ids quoted in payloads (evidence) become the place of the message they
name (lane and position). Independent work may interleave
differently in two runs, so order is compared within each causal lane — the messages one
role sent about one task (or about no task), which that role produced in sequence — and
parent links tie the lanes together. Presence messages (heartbeats) are not compared.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from bus import Envelope
from bus.payloads import Usage

__all__ = ["Canonical", "Divergence", "Lane", "Places", "canonical_stream", "first_divergence"]

_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?s\b")
_IGNORED_FIELDS = {"usage": {"latency_s", "rate_wait_s"}, "tool_call": {"latency_s"}}
_SKIPPED_TYPES = {"presence"}

Lane = tuple[str, str]
Place = tuple[Lane, int]


class Places:
    """Assigns each compared message its place (lane, position), in arrival order."""

    def __init__(self) -> None:
        self.of: dict[str, Place] = {}
        self._counts: dict[Lane, int] = defaultdict(int)

    def add(self, env: Envelope) -> Place | None:
        """The place of ``env`` (None for what is not compared: presence, and a model call a
        cancel cut off — whether it had started when the cancel came is timing, not content)."""
        p = env.payload
        if p.type in _SKIPPED_TYPES or (isinstance(p, Usage) and p.cancelled and not p.answer):
            return None
        lane = (env.role, env.task_id or "")
        place = (lane, self._counts[lane])
        self._counts[lane] += 1
        self.of[env.id] = place
        return place


@dataclass(frozen=True)
class Canonical:
    """One message as compared."""

    number: int
    """Its 1-based place in its log."""
    lane: Lane
    """(role, task id or '')."""
    position: int
    """Its place in its lane."""
    form: dict[str, Any]
    """What must be equal: role, task, type, payload and the parent's place."""
    envelope: Envelope


@dataclass(frozen=True)
class Divergence:
    """The first place where two streams differ."""

    recorded: Canonical | None
    """The recorded message (None: the re-run sent a message the recording lacks)."""
    rerun: Canonical | None
    """The re-run's message at the same place (None: it never sent one)."""
    fields: list[str]
    """Where the canonical forms differ (dotted paths, e.g. ``payload.code``)."""


def _blank(value: Any, run_ids: tuple[str, ...], place: dict[str, Place]) -> Any:
    """Message ids become their place; run ids and written durations are blanked."""
    if isinstance(value, str):
        where = place.get(value)
        if where is not None:
            return f"@{where[0][0]}/{where[0][1]}#{where[1]}"
        for run_id in run_ids:
            value = value.replace(run_id, "<run>")
        return _DURATION.sub("<t>s", value)
    if isinstance(value, dict):
        return {k: _blank(v, run_ids, place) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v, run_ids, place) for v in value]
    return value


def canonical_stream(envelopes: list[tuple[int, Envelope]]) -> list[Canonical]:
    """Canonical forms of ``(number, envelope)`` pairs, in the order given."""
    run_ids = tuple(sorted({e.run_id for _, e in envelopes}, key=len, reverse=True))
    places = Places()
    place = places.of
    result = []
    for number, env in envelopes:
        where = places.add(env)
        if where is None:
            continue
        kind = env.payload.type
        lane, position = where
        payload = env.payload.model_dump(mode="json", exclude=_IGNORED_FIELDS.get(kind))
        if isinstance(payload.get("scenario"), dict):  # where the scenario lay is not content
            payload["scenario"] = {k: v for k, v in payload["scenario"].items() if k != "base_dir"}
        parent = place.get(env.parent_id) if env.parent_id else None
        form = {
            "role": env.role,
            "task": env.task_id,
            "type": kind,
            "parent": [*parent[0], parent[1]] if parent else env.parent_id and "(unknown)",
            "payload": _blank(payload, run_ids, place),
        }
        result.append(Canonical(number, lane, position, form, env))
    return result


def _paths(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted paths at which two JSON-like values differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in [*old, *(k for k in new if k not in old)]:
            found += _paths(old.get(key), new.get(key), f"{prefix}{key}.")
        return found
    if old != new:
        return [prefix.rstrip(".") or "(message)"]
    return []


def _lanes(stream: list[Canonical]) -> dict[Lane, list[Canonical]]:
    lanes: dict[Lane, list[Canonical]] = defaultdict(list)
    for c in stream:
        lanes[c.lane].append(c)
    return lanes


def first_divergence(
    recorded: list[tuple[int, Envelope]], rerun: list[tuple[int, Envelope]]
) -> Divergence | None:
    """The first recorded message (in log order) whose counterpart differs, or the first
    extra message of the re-run; None when the two runs are identical."""
    old_stream, new_stream = canonical_stream(recorded), canonical_stream(rerun)
    new_lanes = _lanes(new_stream)
    for old in old_stream:
        lane = new_lanes.get(old.lane, [])
        new = lane[old.position] if old.position < len(lane) else None
        if new is None:
            return Divergence(old, None, [])
        if new.form != old.form:
            return Divergence(old, new, _paths(old.form, new.form))
    old_counts = {lane: len(items) for lane, items in _lanes(old_stream).items()}
    for new in new_stream:
        if new.position >= old_counts.get(new.lane, 0):
            return Divergence(None, new, [])
    return None
