"""One valid instance of every payload type, for round-trip tests."""

from __future__ import annotations

from bus import payloads as p

TASK = p.TaskSpec(
    id="t1",
    role="coder",
    description="count primes",
    inputs=["limit"],
    outputs=["count"],
    depends_on=["t0"],
    effort=2.0,
    value=3.0,
)
ARTIFACT = p.Artifact(name="report.md", path="artifacts/t1/report.md", size=12, sha256="ab" * 32)

SAMPLES: list[p.Payload] = [
    p.Goal(text="count primes", inputs={"limit": 100, "nested": {"a": [1, 2.5, None, True]}}),
    p.PlanRequest(goal="g", reason="invalid", errors=["cycle"], completed={"t0": {"x": 1}}),
    p.Plan(revision=2, success_criteria=["a number"], tasks=[TASK], rationale="because"),
    p.PlanDecision(revision=1, accepted=False, errors=["cycle t1→t2→t1"], merged={"t3": "t2"}),
    p.TaskAssignment(task=TASK, goal="g", inputs={"limit": 100}, attempt=2, notes=["be careful"]),
    p.TaskResult(
        task_id="t1", role="coder", status="done", outputs={"count": 25}, artifacts=[ARTIFACT]
    ),
    p.ExecRequest(code="print(1)", timeout_s=5.0, input_files=["data.csv"]),
    p.ExecResult(exit_code=0, stdout="1\n", stderr="", wall_s=0.02, files={"a.txt": "aGk="}),
    p.Question(question_id="q1", kind="plan_approval", text="ok?", default="approve", timeout_s=5),
    p.Answer(question_id="q1", text="no", approved=False, by="ada"),
    p.Answer(question_id="q2", text="stop", by="default", note="nobody answered within 5s"),
    p.Chat(text="hello ünïcode ✓", to="coder", by="ada"),
    p.Rating(task_id="t1", score=4, comment="good", by="ada"),
    p.Critique(detector="repeat", verdict="loop", summary="same code", evidence=["m1", "m2"]),
    p.Lesson(text="check inputs", task_kind="code", source=["m3"]),
    p.Usage(kind="model", model="gpt", tokens_in=10, tokens_out=5, cost=0.001, answer="{}"),
    p.ToolCall(server="fetch", tool="fetch", arguments={"url": "http://x"}, result="page", size=4),
    p.Recall(role="planner", query="primes", lessons=[p.RecalledLesson(id=3, text="check n < 2")]),
    p.Control(action="abort", reason="enough", by="ada"),
    p.Presence(status="up", role="coder", concurrency=2, host="h", pid=42),
    p.Final(status="succeeded", answer="25", outputs={"count": 25}, artifacts=[ARTIFACT]),
    p.DeadLetter(subject="society.r.chat", raw="{", error="bad", receiver="x"),
]


def sender_for(payload: p.Payload) -> str:
    """A sender that may publish ``payload`` (roles before people, whose ``by`` must match)."""
    from bus.authority import may_publish
    from bus.roster import ROSTER

    role = next(r for r in ROSTER.names() if r != "human" and may_publish(r, payload.CHANNEL))
    return f"{role}/0"
