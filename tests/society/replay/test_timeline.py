"""The timeline: numbering, parent links, filters, one-line summaries, the causal tree."""

from __future__ import annotations

from rich.console import Console

from bus import Envelope
from bus.payloads import Presence
from society.replay.timeline import Filter, entries, render, summarize, to_json, tree

from ...bus.samples import SAMPLES
from .logs import envelopes, records


def test_entries_are_numbered_and_linked_to_their_parents() -> None:
    items = entries(records(envelopes()))
    assert [e.number for e in items] == list(range(1, 13))
    by_type = {e.envelope.payload.type: e for e in items if e.envelope}
    assert by_type["goal"].parent_number is None
    assert by_type["plan_request"].parent_number == 1
    assert by_type["plan"].parent_number == 2
    assert by_type["exec_result"].parent_number == by_type["exec_request"].number
    assert all(e.offset_s >= 0 for e in items)


def test_filters_by_role_type_task_and_time() -> None:
    items = entries(records(envelopes()))
    coder = [e for e in items if Filter(roles={"coder"})(e)]
    assert {e.envelope.role for e in coder if e.envelope} == {"coder"} and len(coder) == 4
    results = [e for e in items if Filter(types={"result"})(e)]
    assert [e.envelope.task_id for e in results if e.envelope] == ["a", "b"]
    task_b = [e for e in items if Filter(tasks={"b"})(e)]
    assert [e.envelope.payload.type for e in task_b if e.envelope] == ["task", "result"]
    last = items[-1].offset_s
    assert [e for e in items if Filter(since_s=last + 1)(e)] == []
    assert len([e for e in items if Filter(until_s=last)(e)]) == 12


def test_every_payload_kind_has_a_summary() -> None:
    for payload in SAMPLES:
        assert summarize(payload), payload.type
        env = Envelope.new("r", "coder/0", payload)
        (item,) = entries(records([env]))
        assert payload.type in render(item).plain
        assert to_json(item)["envelope"]["payload"]["type"] == payload.type


def test_the_causal_tree_of_a_task_holds_its_messages_and_their_consequences() -> None:
    console = Console(width=200, record=True)
    console.print(tree(entries(records(envelopes())), "a"))
    text = console.export_text()
    assert "causal tree of task a" in text
    for kind in ("task", "usage", "exec_request", "exec_result", "result", "final"):
        assert kind in text, kind
    assert "[b]" not in text  # task b is not part of a's tree


def test_heartbeats_show_only_when_presence_is_asked_for() -> None:
    beat = Envelope.new("r", "coder/0", Presence(status="heartbeat", role="coder"))
    up = Envelope.new("r", "coder/0", Presence(status="up", role="coder"))
    items = entries(records([up, beat]))
    assert [e.number for e in items if Filter()(e)] == [1]
    assert [e.number for e in items if Filter(types={"presence"})(e)] == [1, 2]
