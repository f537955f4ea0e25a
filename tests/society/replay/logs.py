"""A small synthetic run log (no server needed) for timeline, compare and CLI tests."""

from __future__ import annotations

from pathlib import Path

from bus import Envelope
from bus import payloads as p
from bus.logfile import LogRecord, write_jsonl

RUN = "synthetic-run"


def spec(task_id: str, role: str) -> p.TaskSpec:
    return p.TaskSpec(id=task_id, role=role, description=f"do {task_id}", outputs=[task_id])


def envelopes(run: str = RUN, instance: str = "0") -> list[Envelope]:
    """goal → plan request → plan → two tasks in parallel (a, b) → results → final."""
    goal = Envelope.new(run, "runner/0", p.Goal(text="do a and b"))
    req = goal.reply("manager/0", p.PlanRequest(goal="do a and b", reason="initial"))
    plan = req.reply(
        "planner/0", p.Plan(revision=1, tasks=[spec("a", "coder"), spec("b", "researcher")])
    )
    ta = goal.reply("manager/0", p.TaskAssignment(task=spec("a", "coder"), goal="g"), task_id="a")
    tb = goal.reply(
        "manager/0", p.TaskAssignment(task=spec("b", "researcher"), goal="g"), task_id="b"
    )
    ua = ta.reply(f"coder/{instance}", p.Usage(kind="model", model="m", answer="code"))
    xa = ta.reply(f"coder/{instance}", p.ExecRequest(code="print(1)", timeout_s=5))
    ra = xa.reply(f"coder/{instance}", p.ExecResult(exit_code=0, stdout="1", stderr="", wall_s=0.1))
    da = ta.reply(
        f"coder/{instance}",
        p.TaskResult(task_id="a", role="coder", status="done", outputs={"a": 1}),
    )
    db = tb.reply(
        f"researcher/{instance}",
        p.TaskResult(task_id="b", role="researcher", status="done", outputs={"b": 2}),
    )
    crit = Envelope.new(
        run,
        "critic/0",
        p.Critique(detector="repeat", verdict="ok", summary="fine", evidence=[ta.id, tb.id]),
        parent_id=db.id,
    )
    final = Envelope.new(
        run, "manager/0", p.Final(status="succeeded", answer="1 and 2"), parent_id=da.id
    )
    return [goal, req, plan, ta, tb, ua, xa, ra, da, db, crit, final]


def records(envs: list[Envelope]) -> list[LogRecord]:
    from bus.envelope import subject_for

    return [LogRecord(seq=i, subject=subject_for(e), envelope=e) for i, e in enumerate(envs, 1)]


def write(path: Path, envs: list[Envelope] | None = None) -> Path:
    write_jsonl(records(envs if envs is not None else envelopes()), path)
    return path
