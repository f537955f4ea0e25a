"""What a log recorded that a re-run needs: the scenario, the model answers per role, and
the sandbox results per program, optionally only up to a message number (a fork)."""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import ExecRequest, ExecResult, Goal, TaskResult, Usage
from roles.execution import ExecutionResult, from_payload
from society.errors import RunError
from society.models.replay import RecordedAnswer, RecordedCalls
from society.scenario import Scenario

__all__ = ["Recorded"]


@dataclass
class Recorded:
    """A run's log, digested for re-running."""

    records: list[LogRecord]
    run_id: str
    goal: Goal
    answers: dict[tuple[str, str], list[RecordedAnswer]] = field(default_factory=dict)
    """Model answers by lane (role, task id or ''), in log order."""
    holds: set[tuple[str, str]] = field(default_factory=set)
    """Task lanes whose work ended cancelled (or never ended) in the recording."""
    executions: dict[str, deque[ExecutionResult | None]] = field(default_factory=dict)
    """Sandbox results by program, in log order; None for a run that never finished."""

    @classmethod
    def from_records(cls, records: list[LogRecord], *, upto: int | None = None) -> Recorded:
        """Digest ``records``; with ``upto``, only messages 1..upto of the log (a fork)."""
        kept = records if upto is None else records[:upto]
        envs = [r.envelope for r in kept if r.envelope is not None]
        goal_env = next((e for e in envs if isinstance(e.payload, Goal)), None)
        if goal_env is None:
            msg = "the log holds no goal message: it cannot be re-run"
            raise RunError(msg)
        assert isinstance(goal_env.payload, Goal)
        rec = cls(records=records, run_id=goal_env.run_id, goal=goal_env.payload)
        answers: dict[tuple[str, str], list[RecordedAnswer]] = defaultdict(list)
        last_status: dict[tuple[str, str], str] = {}
        for env in envs:
            p = env.payload
            if isinstance(p, TaskResult):
                last_status[(env.role, p.task_id)] = p.status
            if isinstance(p, Usage) and p.kind == "model":
                answers[(env.role, env.task_id or "")].append(
                    RecordedAnswer(
                        fingerprint=p.fingerprint,
                        answer=p.answer or "",
                        tokens_in=p.tokens_in,
                        tokens_out=p.tokens_out,
                        latency_s=p.latency_s,
                        error=p.error,
                        cancelled=p.cancelled or (p.answer is None and p.error is None),
                        tool_calls=p.tool_calls,
                    )
                )
        # Cancelled in the recording (with or without a call: a task withdrawn before it
        # started made none), or never ended: a re-run's call there waits for the cancel.
        lanes = set(answers) | set(last_status)
        rec.holds = {
            lane for lane in lanes if lane[1] and last_status.get(lane, "cancelled") == "cancelled"
        }
        rec.answers = dict(answers)
        requests: dict[str, str] = {}
        executions: dict[str, deque[ExecutionResult | None]] = defaultdict(deque)
        slots: dict[str, tuple[str, int]] = {}
        for env in envs:
            p = env.payload
            if isinstance(p, ExecRequest):
                # Held open until its result shows up; a request with none never finished.
                slots[env.id] = (p.code, len(executions[p.code]))
                executions[p.code].append(None)
                requests[env.id] = p.code
            elif isinstance(p, ExecResult) and env.parent_id in slots:
                code, index = slots.pop(env.parent_id)
                executions[code][index] = from_payload(p)
        rec.executions = dict(executions)
        return rec

    def calls(self) -> RecordedCalls:
        """The model answers, ready to serve."""
        return RecordedCalls(self.answers, self.holds)

    def scenario(self, base_dir: Path | None = None) -> Scenario:
        """The scenario recorded with the goal."""
        data: dict[str, Any] | None = self.goal.scenario
        if data is None:
            msg = "the log's goal carries no scenario: it was written by an older version"
            raise RunError(msg)
        data = dict(data)
        recorded_dir = data.pop("base_dir", None)
        folder = base_dir or (Path(recorded_dir) if recorded_dir else Path.cwd())
        return Scenario.model_validate({**data, "base_dir": folder})

    def envelopes(self) -> list[Envelope]:
        """Every valid message, in log order."""
        return [r.envelope for r in self.records if r.envelope is not None]
