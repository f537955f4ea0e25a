"""Deterministic detectors over a run's message history. Each returns findings with the
ids of the messages that show the problem; thresholds come from `CriticSettings`."""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from bus import Envelope
from bus.payloads import (
    Chat,
    ExecRequest,
    ExecResult,
    Plan,
    PlanDecision,
    TaskAssignment,
    TaskResult,
)
from roles.memory import fts_query
from roles.settings import CriticSettings

__all__ = ["Finding", "detect_all", "error_signature", "since_plan", "words"]


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


def _role_chat(env: Envelope) -> bool:
    """A chat between roles: what people say (or are told) steers the run, it is no loop."""
    p = env.payload
    return isinstance(p, Chat) and env.role != "human" and p.to != "human"


def _content(env: Envelope) -> str | None:
    p = env.payload
    match p:
        case ExecRequest():
            return p.code
        case Chat() if _role_chat(env):
            return p.text
        case TaskResult() if p.status == "failed":
            return p.error or ""
        case TaskResult():
            return json.dumps(p.outputs, sort_keys=True)
        case _:
            return None


def detect_repeats(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """The same or nearly the same message repeated by one role."""
    by_role: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for env in history:
        text = _content(env)
        if text:
            by_role[f"{env.role}:{env.payload.type}"].append((env.id, text))
    findings = []
    for key, items in by_role.items():
        recent = items[-(s.repeat_threshold * 3) :]
        last = recent[-1][1]
        similar = [mid for mid, text in recent if fuzz.ratio(text, last) >= s.similarity]
        if len(similar) >= s.repeat_threshold:
            role, kind = key.split(":")
            findings.append(
                Finding(
                    "repeat",
                    "loop",
                    f"{role} sent {len(similar)} near-identical {kind} messages",
                    tuple(similar),
                    f"change the approach of the {role}; do not repeat the same {kind}",
                )
            )
    return findings


def detect_same_error(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """The same error signature from the sandbox again and again."""
    by_sig: dict[str, list[str]] = defaultdict(list)
    for env in history:
        p = env.payload
        if isinstance(p, ExecResult) and (p.exit_code not in (0, None) or p.timed_out):
            sig = "timeout" if p.timed_out else error_signature(p.stderr)
            by_sig[sig].append(env.id)
    return [
        Finding(
            "same_error",
            "loop",
            f"the same error came back {len(ids)} times: {sig}",
            tuple(ids),
            "split the task or change how it is solved; the fix attempts are not working",
        )
        for sig, ids in by_sig.items()
        if len(ids) >= s.same_error_threshold
    ]


def detect_ping_pong(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """Two roles sending chat back and forth with no task completed in between."""
    chain: list[Envelope] = []
    for env in history:
        p = env.payload
        if isinstance(p, TaskResult) and p.status == "done":
            chain = []
        elif isinstance(p, Chat) and p.to and _role_chat(env):
            if chain and {chain[-1].role, chain[-1].payload.to} != {env.role, p.to}:  # type: ignore[union-attr]
                chain = []
            chain.append(env)
    if len(chain) >= s.ping_pong_threshold:
        a, b = chain[0].role, chain[0].payload.to  # type: ignore[union-attr]
        return [
            Finding(
                "ping_pong",
                "loop",
                f"{a} and {b} exchanged {len(chain)} messages without completing a task",
                tuple(e.id for e in chain),
                f"stop the exchange between {a} and {b}; give one of them a concrete task",
            )
        ]
    return []


def detect_stall(
    history: Sequence[Envelope], s: CriticSettings, now: float | None = None
) -> list[Finding]:
    """No task completed and no new output for a while."""
    if not history:
        return []
    now = time.time() if now is None else now
    last_progress = history[0].ts / 1e6
    last_ids: list[str] = [history[0].id]
    for env in history:
        p = env.payload
        if isinstance(p, Plan) or (isinstance(p, TaskResult) and p.status == "done"):
            last_progress = env.ts / 1e6
            last_ids = [env.id]
    idle = now - last_progress
    if idle >= s.stall_s:
        return [
            Finding(
                "stall",
                "stall",
                f"no task completed and no new output for {idle:.0f}s",
                tuple(last_ids),
                "replan with smaller tasks or ask the human",
            )
        ]
    return []


def detect_drift(history: Sequence[Envelope], goal: str, s: CriticSettings) -> list[Finding]:
    """Tasks of the latest plan that feed nothing towards the answer and whose words
    barely overlap with the goal's."""
    goal_words = words(goal)
    plan_env = next(
        (e for e in reversed(history) if isinstance(e.payload, Plan) and e.payload.tasks), None
    )
    if not goal_words or plan_env is None:
        return []
    assert isinstance(plan_env.payload, Plan)
    tasks = plan_env.payload.tasks
    consumed = {name for t in tasks for name in t.inputs} | {"answer"}
    drifting = []
    for task in tasks:
        if consumed.intersection(task.outputs):
            continue  # it feeds the answer path: not a wanderer, whatever its words
        task_words = words(task.description)

        if (
            task_words
            and len(task_words & goal_words) / len(task_words | goal_words) < s.drift_threshold
        ):
            drifting.append(task.id)
    if not drifting:
        return []
    evidence = [plan_env.id] + [
        e.id
        for e in history
        if isinstance(e.payload, TaskAssignment)
        and e.payload.task.id in drifting
        and e.ts >= plan_env.ts
    ]
    return [
        Finding(
            "drift",
            "drift",
            f"tasks {', '.join(drifting)} of plan revision {plan_env.payload.revision} have little to do with the goal",
            tuple(evidence),
            f"drop {', '.join(drifting)} and plan only work that serves the goal",
        )
    ]


def detect_redo(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """A task planned again after an equal task was already done."""
    done: dict[str, tuple[str, str]] = {}
    assigned: dict[str, str] = {}
    for env in history:
        p = env.payload
        if isinstance(p, TaskAssignment):
            assigned[p.task.id] = p.task.description
        elif isinstance(p, TaskResult) and p.status == "done" and p.task_id in assigned:
            done[p.task_id] = (env.id, assigned[p.task_id])
    findings = []
    for env in history:
        p = env.payload
        if not isinstance(p, Plan) or p.revision < 2:
            continue
        for task in p.tasks:
            for tid, (rid, desc) in done.items():
                if fuzz.token_sort_ratio(desc, task.description) >= s.similarity and rid < env.id:
                    findings.append(
                        Finding(
                            "redo",
                            "loop",
                            f"plan revision {p.revision} plans {task.id!r} again, but {tid!r} already did it",
                            (rid, env.id),
                            f"keep the output of {tid} instead of redoing it",
                        )
                    )
    return findings


def since_plan(history: Sequence[Envelope]) -> Sequence[Envelope]:
    """The messages since the latest accepted plan (loops are judged per plan revision)."""
    for i in range(len(history) - 1, -1, -1):
        p = history[i].payload
        if isinstance(p, PlanDecision) and p.accepted:
            return history[i:]
    return history


def detect_all(
    history: Sequence[Envelope], goal: str, s: CriticSettings, now: float | None = None
) -> list[Finding]:
    """Every detector, in a fixed order; loop detectors look at the current plan revision."""
    window = since_plan(history)
    return [
        *detect_same_error(window, s),
        *detect_repeats(window, s),
        *detect_ping_pong(window, s),
        *detect_redo(history, s),
        *detect_drift(history, goal, s),
        *detect_stall(history, s, now),
    ]
