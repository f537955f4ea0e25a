"""What a run produced: its outcome, and the ``summary.json`` written to its folder
whatever way it ended."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bus.payloads import Final
from society.view.progress import RunState

EXIT_PARKED = 75
"""A parked run's exit code (EX_TEMPFAIL: it continues later)."""

__all__ = ["EXIT_PARKED", "RunOutcome", "summary_of", "write_json", "write_outcome"]


@dataclass
class RunOutcome:
    """What a run produced and where."""

    run_id: str
    run_dir: Path
    final: Final | None
    log_path: Path | None
    state: RunState
    already_finished: bool = False
    """A resume found the run finished: nothing was done."""
    parked: str | None = None
    """Why the run parked, waiting for a person: `society resume` continues it."""

    @property
    def exit_code(self) -> int:
        """0 when the run succeeded (or a resume found it finished), else 1."""
        if self.already_finished:
            return 0
        if self.parked is not None and self.final is None:
            return EXIT_PARKED
        return 0 if self.final is not None and self.final.status == "succeeded" else 1


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def write_outcome(
    run_id: str,
    run_dir: Path,
    state: RunState,
    log_path: Path,
    *,
    already_finished: bool = False,
    parked: str | None = None,
) -> RunOutcome:
    """The outcome, also written to ``summary.json``."""
    outcome = RunOutcome(run_id, run_dir, state.final, log_path, state, already_finished, parked)
    write_json(run_dir / "summary.json", summary_of(outcome))
    return outcome


def summary_of(outcome: RunOutcome) -> dict[str, Any]:
    """The run in ``summary.json``."""
    s = outcome.state
    final = outcome.final
    unfinished = "parked" if outcome.parked is not None else "no final message"
    return {
        "run_id": outcome.run_id,
        "status": final.status if final else unfinished,
        "reason": final.reason if final else (outcome.parked or ""),
        "answer": final.answer if final else None,
        "tasks": {
            t.id: {"role": t.role, "state": t.state, "attempts": t.attempts}
            for t in s.tasks.values()
        },
        "model_calls": s.calls,
        "tokens_in": s.tokens_in,
        "tokens_out": s.tokens_out,
        "cost": s.cost,
        "sandbox_s": s.sandbox_s,
        "wall_s": round(s.wall_s, 3),
        "replans": s.replans,
        "critiques": [c.model_dump() for c in s.critiques],
        "max_in_flight": s.max_in_flight,
        "messages": s.messages,
        "heartbeats_left_out": s.heartbeats,
        "log": str(outcome.log_path) if outcome.log_path else None,
    }
