"""`RunPage`: what the web view shows of one run, folded from its messages — the tasks and
their graph, the conversation by role, spend against every budget with a forecast, why
tasks wait, and the questions waiting for a person."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import Goal, Usage
from society.human.state import Conversation
from society.view.describe import describe
from society.view.live import spend
from society.view.progress import STATES, RunState
from society.web.graph import graph_svg

__all__ = ["RunPage"]

_MESSAGES = 300
_PACE_S = 5.0
"""A forecast from the pace so far needs this much of the run behind it."""


@dataclass
class RunPage:
    """One run as the web view shows it."""

    run_id: str
    live: bool = False
    """Followed from its server (else read from its log file: read-only)."""
    state: RunState = field(init=False)
    conv: Conversation = field(default_factory=Conversation)
    limits: dict[str, float] = field(default_factory=dict)
    goal: str = ""
    messages: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=_MESSAGES))
    problems: int = 0
    count: int = 0

    def __post_init__(self) -> None:
        self.state = RunState(self.run_id)

    def take(self, record: LogRecord) -> None:
        """Fold one record of the log in."""
        env = record.envelope
        if env is None:
            self.problems += 1
            return
        if env.run_id != self.run_id:
            return
        self.count += 1
        self.state.apply(env)
        asked = self.conv.apply(env)
        p = env.payload
        if isinstance(p, Goal):
            self.goal = p.text
            budgets = (p.scenario or {}).get("budgets")
            if isinstance(budgets, dict):
                self.limits = {
                    k: float(v) for k, v in budgets.items() if isinstance(v, int | float)
                }
        said = describe(p, env, asked)
        if p.type == "presence":
            return
        entry: dict[str, Any] = {
            "n": self.count,
            "t": round((env.ts - (self.state.first_ts or env.ts)) / 1e6, 2),
            "sender": env.sender,
            "role": env.role,
            "type": p.type,
            "task": env.task_id,
            "text": said.summary,
        }
        if isinstance(p, Usage) and p.prompt:
            entry["prompt"] = p.prompt
        self.messages.append(entry)

    def budgets(self) -> list[dict[str, Any]]:
        """Spend against each budget, and when it runs out at the pace so far."""
        used = spend(self.state)
        wall = max(self.state.wall_s, 1e-9)
        rows = []
        for name, value in used.items():
            limit = self.limits.get(name)
            eta = None
            pace_known = name == "wall_s" or wall >= _PACE_S
            if limit is not None and value > 0 and self.state.final is None and pace_known:
                rate = 1.0 if name == "wall_s" else value / wall
                eta = max(0.0, (limit - value) / rate)
            rows.append({"name": name, "used": round(value, 4), "limit": limit, "eta_s": eta})
        return rows

    def pending(self) -> list[dict[str, Any]]:
        """The questions still waiting for an answer."""
        now = time.time()
        return [
            {
                "label": q.label,
                "qid": q.qid,
                "kind": q.question.kind,
                "text": q.question.text,
                "options": q.question.options,
                "default": q.question.default,
                "asker": q.asker,
                "task": q.task_id,
                "seconds_left": round(max(0.0, q.seconds_left(now))),
                "how": q.how_to_answer(),
            }
            for q in self.conv.pending(now)
        ]

    def to_json(self, *, writable: bool, max_tasks: int = 2000) -> dict[str, Any]:
        """Everything the page draws."""
        s = self.state
        tasks = list(s.tasks.values())
        final = s.final
        return {
            "run_id": self.run_id,
            "goal": self.goal,
            "live": self.live and final is None,
            "writable": writable and self.live and final is None,
            "status": final.status if final else ("paused" if s.paused else "running"),
            "final": None
            if final is None
            else {"status": final.status, "answer": final.answer, "reason": final.reason},
            "revision": s.revision,
            "messages_count": self.count,
            "states": {k: s.counts[k] for k in STATES if s.counts[k] > 0},
            "paused": s.paused,
            "rate_wait_s": round(s.rate_wait_s, 3),
            "tasks": [
                {
                    "id": t.id,
                    "role": t.role,
                    "state": t.state,
                    "attempts": t.attempts,
                    "value": t.value,
                    "effort": t.effort,
                    "depends_on": list(t.depends_on),
                    "waiting": s.waiting_for(t),
                    "note": t.note,
                    "rate_wait_s": round(t.rate_wait_s, 3),
                    "description": t.description,
                }
                for t in tasks[:max_tasks]
            ],
            "tasks_total": len(tasks),
            "graph": graph_svg(tasks),
            "budgets": self.budgets(),
            "pending": self.pending(),
            "people": self.conv.attached(),
            "conversation": list(self.messages),
        }


def page_of(run_id: str, envelopes: list[Envelope]) -> RunPage:
    """A page folded from messages (tests)."""
    page = RunPage(run_id)
    for i, env in enumerate(envelopes, 1):
        page.take(LogRecord(seq=i, subject="", envelope=env))
    return page
