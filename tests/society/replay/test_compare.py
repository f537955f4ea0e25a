"""Comparing message streams: what identity ignores and what it does not."""

from __future__ import annotations

from bus import Envelope
from bus import payloads as p
from society.replay.compare import first_divergence

from .logs import envelopes


def numbered(envs: list[Envelope]) -> list[tuple[int, Envelope]]:
    return list(enumerate(envs, start=1))


def test_ids_times_runs_and_instances_are_ignored() -> None:
    old = envelopes("run-one", instance="0")
    new = envelopes("run-two", instance="3")
    assert {e.id for e in old}.isdisjoint({e.id for e in new})
    assert first_divergence(numbered(old), numbered(new)) is None


def test_independent_tasks_may_interleave_differently() -> None:
    old = envelopes()
    new = envelopes()
    # task b's result before task a's messages: another order of independent work
    b_result = next(e for e in new if isinstance(e.payload, p.TaskResult) and e.task_id == "b")
    new.remove(b_result)
    new.insert(5, b_result)
    assert first_divergence(numbered(old), numbered(new)) is None


def test_order_within_a_causal_lane_matters() -> None:
    old = envelopes()
    new = envelopes()
    i = next(i for i, e in enumerate(new) if isinstance(e.payload, p.ExecRequest))
    new[i - 1], new[i] = new[i], new[i - 1]  # the coder's usage and exec request swapped
    div = first_divergence(numbered(old), numbered(new))
    assert div is not None and div.recorded is not None
    assert div.recorded.number == i  # the usage message, 1-based
    assert div.recorded.envelope.payload.type == "usage"


def test_content_changes_are_found_with_their_path() -> None:
    old = envelopes()
    new = envelopes()
    i = next(i for i, e in enumerate(new) if isinstance(e.payload, p.ExecRequest))
    env = new[i]
    new[i] = Envelope.new(
        env.run_id,
        env.sender,
        p.ExecRequest(code="print(2)", timeout_s=5),
        parent_id=env.parent_id,
        task_id=env.task_id,
    )
    div = first_divergence(numbered(old), numbered(new))
    assert div is not None and div.recorded is not None and div.rerun is not None
    assert div.recorded.number == i + 1
    assert div.fields == ["payload.code"]


def test_a_message_the_rerun_lacks_or_adds_is_found() -> None:
    old = envelopes()
    new = envelopes()[:-1]
    div = first_divergence(numbered(old), numbered(new))
    assert div is not None and div.rerun is None
    assert div.recorded is not None and div.recorded.envelope.payload.type == "final"
    div = first_divergence(numbered(new), numbered(old))
    assert div is not None and div.recorded is None
    assert div.rerun is not None and div.rerun.envelope.payload.type == "final"


def test_evidence_ids_compare_by_the_place_they_point_at() -> None:
    old = envelopes()
    new = envelopes()
    crit = next(i for i, e in enumerate(new) if isinstance(e.payload, p.Critique))
    env = new[crit]
    assert isinstance(env.payload, p.Critique)
    swapped = env.payload.model_copy(update={"evidence": list(reversed(env.payload.evidence))})
    new[crit] = Envelope.new(env.run_id, env.sender, swapped, parent_id=env.parent_id)
    div = first_divergence(numbered(old), numbered(new))
    assert div is not None and div.fields == ["payload.evidence"]


def test_a_different_parent_is_a_difference() -> None:
    old = envelopes()
    new = envelopes()
    i = len(new) - 1  # the final: re-parent it on the researcher's result
    env = new[i]
    other = next(e for e in new if isinstance(e.payload, p.TaskResult) and e.task_id == "b")
    new[i] = Envelope.new(env.run_id, env.sender, env.payload, parent_id=other.id)
    div = first_divergence(numbered(old), numbered(new))
    assert div is not None and div.fields == ["parent"]
