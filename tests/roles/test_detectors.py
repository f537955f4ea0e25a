"""The critic's deterministic detectors on synthetic histories (pure logic)."""

from __future__ import annotations

from bus import Envelope
from bus.payloads import (
    Chat,
    ExecRequest,
    ExecResult,
    Payload,
    Plan,
    PlanDecision,
    TaskAssignment,
    TaskResult,
    TaskSpec,
)
from roles.critic.detectors import (
    detect_all,
    detect_drift,
    detect_ping_pong,
    detect_redo,
    detect_repeats,
    detect_same_error,
    detect_stall,
    error_signature,
)
from roles.settings import CriticSettings

S = CriticSettings()


def env(sender: str, payload: Payload) -> Envelope:
    return Envelope.new("r", sender, payload)


def failed_run(stderr: str) -> Envelope:
    return env("coder/0", ExecResult(exit_code=1, stdout="", stderr=stderr, wall_s=0.1))


def test_error_signature_ignores_numbers_and_addresses() -> None:
    a = 'Traceback...\n  File "x.py", line 3\nValueError: bad value 17 at 0x7f00aa'
    b = 'Traceback...\n  File "x.py", line 9\nValueError: bad value 4 at 0x7f11bb'
    assert error_signature(a) == error_signature(b) == "ValueError: bad value N at ADDR"


def test_same_error_fires_at_the_threshold_only() -> None:
    two = [failed_run("KeyError: 'x'"), failed_run("KeyError: 'x'")]
    assert detect_same_error(two, S) == []
    three = [*two, failed_run("KeyError: 'x'")]
    (finding,) = detect_same_error(three, S)
    assert finding.detector == "same_error"
    assert finding.evidence == tuple(e.id for e in three)
    assert detect_same_error([*two, failed_run("TypeError: y")], S) == []


def test_repeats_of_nearly_identical_code() -> None:
    codes = ["print(sum(range(10)))", "print(sum(range(10))) ", "print( sum(range(10)))"]
    history = [env("coder/0", ExecRequest(code=c, timeout_s=5)) for c in codes]
    (finding,) = detect_repeats(history, S)
    assert finding.detector == "repeat"
    different = [
        env("coder/0", ExecRequest(code=c, timeout_s=5))
        for c in ("a=1", "import os; os.listdir()", "print('hello world')")
    ]
    assert detect_repeats(different, S) == []


def test_ping_pong_between_two_roles_resets_on_progress() -> None:
    back_and_forth = [
        env("researcher/0", Chat(text=f"question {i}?", to="planner"))
        if i % 2 == 0
        else env("planner/0", Chat(text=f"answer {i}", to="researcher"))
        for i in range(4)
    ]
    (finding,) = detect_ping_pong(back_and_forth, S)
    assert finding.detector == "ping_pong"
    progress = env("coder/0", TaskResult(task_id="t", role="coder", status="done"))
    assert detect_ping_pong([*back_and_forth[:2], progress, *back_and_forth[2:]], S) == []


def test_stall_measures_time_since_progress() -> None:
    start = env("manager/0", Plan(revision=1, tasks=[]))
    now = start.ts / 1e6
    assert detect_stall([start], S, now=now + S.stall_s - 1) == []
    (finding,) = detect_stall([start], S, now=now + S.stall_s + 1)
    assert finding.verdict == "stall"


def plan(*tasks: TaskSpec, revision: int = 1) -> Envelope:
    return env("planner/0", Plan(revision=revision, tasks=list(tasks)))


def test_drift_names_off_goal_tasks_that_feed_nothing() -> None:
    goal = "Count the prime numbers below ten thousand"
    on = TaskSpec(
        id="count",
        role="coder",
        description="Count primes below 10000 with a sieve",
        outputs=["answer"],
    )
    off = TaskSpec(
        id="poem", role="researcher", description="Write a poem about the ocean", outputs=["poem"]
    )
    helper = TaskSpec(
        id="setup", role="coder", description="Prepare a lookup table", outputs=["table"]
    )
    uses = TaskSpec(
        id="use", role="coder", description="Use the table", inputs=["table"], outputs=["answer"]
    )
    (finding,) = detect_drift([plan(on, off)], goal, S)
    assert "poem" in finding.summary
    assert "count" not in finding.summary
    assert detect_drift([plan(helper, uses)], goal, S) == []  # helpers feed the answer
    # a live 1.5B plan: a reading in the planner's template words that the count waits for
    # but reads nothing of (the manager wires its outputs in); it was cancelled as drift
    reading = TaskSpec(
        id="find", role="researcher", description="Read the documents", outputs=["primes"]
    )
    waits = on.model_copy(update={"depends_on": ["find"]})
    assert detect_drift([plan(reading, waits)], goal, S) == []
    assert "find" in detect_drift([plan(reading, on)], goal, S)[0].summary


def test_redo_of_a_completed_task() -> None:
    spec = TaskSpec(id="a", role="coder", description="Count the primes below 100")
    history = [
        env("manager/0", TaskAssignment(task=spec, goal="g")),
        env("coder/0", TaskResult(task_id="a", role="coder", status="done")),
        plan(TaskSpec(id="a2", role="coder", description="Count the primes below 100"), revision=2),
    ]
    (finding,) = detect_redo(history, S)
    assert finding.detector == "redo"


def test_a_task_planned_again_to_give_the_answer_is_not_a_redo() -> None:
    desc = "Count the primes below 100"
    spec = TaskSpec(id="a", role="coder", description=desc, outputs=["count"])
    history = [
        env("manager/0", TaskAssignment(task=spec, goal="g")),
        env("coder/0", TaskResult(task_id="a", role="coder", status="done")),
        plan(TaskSpec(id="a2", role="coder", description=desc, outputs=["answer"]), revision=2),
    ]
    assert detect_redo(history, S) == []
    same = TaskSpec(id="a3", role="coder", description=desc, outputs=["count"])
    (finding,) = detect_redo([*history[:2], plan(same, revision=2)], S)
    assert "'a3' again" in finding.summary


def test_loop_detectors_only_look_at_the_current_plan_revision() -> None:
    old = [failed_run("KeyError: 'x'") for _ in range(2)]
    accepted = env("manager/0", PlanDecision(revision=2, accepted=True))
    new = [failed_run("KeyError: 'x'")]
    assert [
        f for f in detect_all([*old, accepted, *new], "g", S) if f.detector == "same_error"
    ] == []


def test_what_people_say_is_never_a_loop() -> None:
    remarks = [env("human/ada", Chat(text="mention Euclid", to="researcher", by="ada"))] * 5
    notices = [env("manager/0", Chat(text="bob's answer is ignored", to="human", by="manager"))] * 5
    assert detect_ping_pong(remarks + notices, S) == []
    assert detect_repeats(remarks + notices, S) == []
