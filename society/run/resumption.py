"""What `society resume` needs besides the roles' own rebuilding: the run's scenario from
its folder, what its log says about where it stopped, and the scripted answers not yet
served (so a scripted run continues its script where it stopped)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import Control, Final, Goal, ToolCall, Usage
from roles.budget import BudgetGuard
from society.errors import RunNotFound
from society.models.replay import RecordedCalls
from society.models.spec import ScriptedAnswer
from society.run.recorded import Recorded
from society.run.uncut import uncut
from society.scenario import Scenario

__all__ = [
    "Stopped",
    "answers_to_serve_again",
    "remaining_script",
    "run_scenario_of",
    "still_running",
]


def run_scenario_of(run_dir: Path) -> Scenario:
    """The scenario a run was started with (``scenario.json`` in its folder)."""
    path = run_dir / "scenario.json"
    if not path.is_file():
        msg = (
            f"{run_dir} holds no run to resume (no scenario.json): check the run id and --runs-dir"
        )
        raise RunNotFound(msg)
    data = json.loads(path.read_text())
    base = data.pop("base_dir", None)
    return Scenario.model_validate({**data, "base_dir": Path(base) if base else run_dir})


def still_running(run_dir: Path) -> str | None:
    """Why the run cannot be resumed because it still runs here (None: it does not)."""
    try:
        pid = int(json.loads((run_dir / "server.json").read_text())["pid"])
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if stat.rsplit(")", 1)[1].split()[0] == "Z":  # killed, not yet reaped
        return None
    return f"run {run_dir.name} is still running (its nats-server, pid {pid}, is up): attach to it"


@dataclass(frozen=True)
class Stopped:
    """Where a run's log stopped."""

    envelopes: list[Envelope]
    goal: Envelope | None
    final: Final | None

    @classmethod
    def of(cls, records: Sequence[LogRecord]) -> Stopped:
        """Read from the run's log: what counts is what an uninterrupted run would have
        said (work a stop cut off is done again, so its spend counts once)."""
        envs = [
            r.envelope for r in uncut(records, marks=True, stopped=True) if r.envelope is not None
        ]
        goal = next((e for e in envs if isinstance(e.payload, Goal)), None)
        final = next((e.payload for e in envs if isinstance(e.payload, Final)), None)
        return cls(envs, goal, final)

    @property
    def resumes(self) -> int:
        """How often the run was resumed before."""
        return sum(
            1
            for e in self.envelopes
            if isinstance(e.payload, Control) and e.payload.action == "resumed"
        )

    def seed(self, guard: BudgetGuard) -> None:
        """What the run spent before it stopped, in the budget guard of the roles."""
        for env in self.envelopes:
            if isinstance(env.payload, Usage | ToolCall):
                guard.used.add_usage(env.payload)


def _text(answer: ScriptedAnswer) -> str:
    return answer.answer if isinstance(answer.answer, str) else json.dumps(answer.answer)


def remaining_script(
    script: dict[str, list[ScriptedAnswer]], envelopes: Sequence[Envelope]
) -> dict[str, list[ScriptedAnswer]]:
    """Each role's scripted answers minus those the log shows were served (one per recorded
    answer: the same text, or the same tool calls)."""
    left = {role: list(answers) for role, answers in script.items()}
    for env in envelopes:
        usage = env.payload
        if not isinstance(usage, Usage) or usage.kind != "model" or usage.answer is None:
            continue
        answers = left.get(env.role, [])
        tools = [t.name for t in usage.tool_calls]
        for i, answer in enumerate(answers):
            served = [c.name for c in answer.tool_calls] == tools if tools else None
            if served or (
                served is None and not answer.tool_calls and _text(answer) == usage.answer
            ):
                del answers[i]
                break
    return left


def answers_to_serve_again(records: list[LogRecord]) -> RecordedCalls:
    """The log's answered model calls, for calls a stop cut off and a resumed run makes again
    (a cancelled or failed call is made afresh)."""
    recorded = Recorded.from_records(records)
    kept = {
        lane: [a for a in answers if not a.cancelled and a.error is None]
        for lane, answers in recorded.answers.items()
    }
    return RecordedCalls(kept)
