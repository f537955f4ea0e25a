"""Unit tests of the spans folded from a run's messages (no exporter, no server)."""

from __future__ import annotations

from bus import Envelope
from bus import payloads as p
from society.tracing.spans import SpanBuilder, span_id_of, trace_id_of
from society.view.progress import RunState

from .replay.logs import RUN, envelopes, spec


def test_the_synthetic_run_makes_a_tree_of_spans_with_derived_ids() -> None:
    envs = envelopes()
    builder = SpanBuilder()
    spans = [s for env in envs for s in builder.take(env)]
    by_name = {s.name: s for s in spans}
    assert set(by_name) == {
        "run", "plan revision 1", "task a", "task b", "chat m", "sandbox execute",
    }  # fmt: skip
    assert {s.trace_id for s in spans} == {trace_id_of(RUN)}
    run = by_name["run"]
    assert run.parent_id is None and run.span_id == span_id_of("run", RUN)
    assert run.attributes["society.run.status"] == "succeeded" and run.error is None
    plan = by_name["plan revision 1"]
    assert by_name["task a"].parent_id == plan.span_id == span_id_of("plan", RUN, "1")
    assert by_name["chat m"].parent_id == by_name["task a"].span_id
    assert by_name["sandbox execute"].parent_id == by_name["task a"].span_id
    assert by_name["chat m"].attributes["gen_ai.operation.name"] == "chat"
    assert plan.error == "unfinished when the run ended"  # no decision in this log
    again = SpanBuilder()
    assert [s.span_id for env in envs for s in again.take(env)] == [s.span_id for s in spans]


def test_a_rate_limit_wait_is_part_of_the_span_apart_from_latency() -> None:
    goal = Envelope.new(RUN, "runner/0", p.Goal(text="g"))
    usage = goal.reply(
        "researcher/0", p.Usage(kind="model", model="m", latency_s=1.0, rate_wait_s=20.0)
    )
    builder = SpanBuilder()
    builder.take(goal)
    (span,) = builder.take(usage)
    assert span.end_ns - span.start_ns == 21_000_000_000
    assert span.attributes["society.rate_limit.wait_s"] == 20.0
    state = RunState(RUN)
    state.apply(goal)
    state.apply(usage)
    assert state.rate_wait_s == 20.0


def test_states_are_honest_refused_superseded_merged_cancelled() -> None:
    goal = Envelope.new(RUN, "runner/0", p.Goal(text="g"))
    state = RunState(RUN)
    plan1 = goal.reply("planner/0", p.Plan(revision=1, tasks=[spec("x", "coder")]))
    refused = goal.reply("manager/0", p.PlanDecision(revision=1, accepted=False, errors=["bad"]))
    plan2 = goal.reply(
        "planner/0", p.Plan(revision=2, tasks=[spec("a", "coder"), spec("a2", "coder")])
    )
    accepted = goal.reply(
        "manager/0", p.PlanDecision(revision=2, accepted=True, merged={"a2": "a"})
    )
    run_a = goal.reply("manager/0", p.TaskAssignment(task=spec("a", "coder"), goal="g"))
    cancel = run_a.reply(
        "coder/0", p.TaskResult(task_id="a", role="coder", status="cancelled"), task_id="a"
    )
    plan3 = goal.reply("planner/0", p.Plan(revision=3, tasks=[spec("b", "researcher")]))
    accepted3 = goal.reply("manager/0", p.PlanDecision(revision=3, accepted=True))
    for env in (goal, plan1):
        state.apply(env)
    assert state.tasks["x"].state == "proposed"
    assert state.waiting_for(state.tasks["x"]) == "its plan's decision"
    for env in (refused, plan2, accepted, run_a, cancel, plan3, accepted3):
        state.apply(env)
    states = {t.id: t.state for t in state.tasks.values()}
    assert states == {
        "x": "refused", "a": "cancelled", "a2": "merged", "b": "pending",
    }  # fmt: skip
    assert state.tasks["a2"].note == "merged into a"
    assert state.counts == {"refused": 1, "cancelled": 1, "merged": 1, "pending": 1} | {
        k: 0 for k in state.counts if state.counts[k] == 0
    }


def test_after_an_abort_the_tasks_that_ran_are_cancelled_not_failed() -> None:
    goal = Envelope.new(RUN, "runner/0", p.Goal(text="g"))
    state = RunState(RUN)
    run_b = goal.reply("manager/0", p.TaskAssignment(task=spec("b", "coder"), goal="g"))
    run_c = goal.reply("manager/0", p.TaskAssignment(task=spec("c", "coder"), goal="g"))
    cancel = goal.reply(
        "manager/0", p.Control(action="cancel", reason="aborted by alice", task_ids=["b"])
    )
    final = goal.reply("manager/0", p.Final(status="aborted", reason="aborted by alice"))
    late = run_b.reply(
        "coder/0", p.TaskResult(task_id="b", role="coder", status="failed", error="cancelled")
    )
    for env in (goal, run_b, run_c, cancel, final, late):
        state.apply(env)
    assert state.tasks["b"].state == "cancelled"
    assert state.tasks["b"].note == "aborted by alice"
    assert state.tasks["c"].state == "cancelled"  # still running when the run ended
    assert state.in_flight == 0


def test_a_task_shows_the_role_it_was_assigned_not_the_raw_plans_last_of_its_id() -> None:
    goal = Envelope.new(RUN, "runner/0", p.Goal(text="g"))
    state = RunState(RUN)
    raw = [spec("compute", "researcher"), spec("compute", "coder")]  # renumbered on acceptance
    plan = goal.reply("planner/0", p.Plan(revision=1, tasks=raw))
    accepted = goal.reply("manager/0", p.PlanDecision(revision=1, accepted=True))
    read = goal.reply("manager/0", p.TaskAssignment(task=spec("compute", "researcher"), goal="g"))
    for env in (goal, plan, accepted, read):
        state.apply(env)
    assert state.tasks["compute"].role == "researcher"
