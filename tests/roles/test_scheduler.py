"""The scheduler: readiness, capacity, priority order and retries (pure logic)."""

from __future__ import annotations

from bus.payloads import TaskSpec
from roles.manager.scheduler import Scheduler, TaskState


def t(id: str, role: str = "coder", **kw: object) -> TaskSpec:
    return TaskSpec(id=id, role=role, description=id, **kw)  # type: ignore[arg-type]


def test_independent_tasks_start_together_within_capacity() -> None:
    tasks = {i: t(i) for i in ("a", "b", "c")} | {"r": t("r", role="researcher")}
    s = Scheduler(tasks, {"coder": 2, "researcher": 1})
    batch = [x.id for x in s.next_batch()]
    assert len(batch) == 3
    assert "r" in batch
    assert s.next_batch() == []  # coder is full
    s.complete(batch[0] if batch[0] != "r" else batch[1], {})
    assert len(s.next_batch()) == 1


def test_priority_order_in_a_batch() -> None:
    tasks = {
        "low": t("low", value=1, effort=2),
        "high": t("high", value=4, effort=1),
        "mid": t("mid", value=2, effort=1),
    }
    s = Scheduler(tasks, {"coder": 1})
    order = []
    while not s.finished:
        (spec,) = s.next_batch()
        order.append(spec.id)
        s.complete(spec.id, {})
    assert order == ["high", "mid", "low"]


def test_dependants_become_ready_with_their_inputs() -> None:
    tasks = {"a": t("a", outputs=["x"]), "b": t("b", inputs=["x", "g"], depends_on=["a"])}
    s = Scheduler(tasks, {"coder": 4}, values={"g": 1})
    assert [x.id for x in s.next_batch()] == ["a"]
    assert s.complete("a", {"x": 42}) == ["b"]
    (b,) = s.next_batch()
    assert s.inputs_for(b) == {"x": 42, "g": 1}


def test_join_waits_for_all_parents() -> None:
    tasks = {"a": t("a"), "b": t("b", role="researcher"), "j": t("j", depends_on=["a", "b"])}
    s = Scheduler(tasks, {"coder": 1, "researcher": 1})
    assert {x.id for x in s.next_batch()} == {"a", "b"}
    assert s.complete("a", {}) == []
    assert s.complete("b", {}) == ["j"]


def test_retry_and_failure_free_capacity() -> None:
    s = Scheduler({"a": t("a"), "b": t("b")}, {"coder": 1})
    (first,) = s.next_batch()
    s.retry(first.id)
    (again,) = s.next_batch()
    assert s.status[again.id].attempts >= 1
    s.fail(again.id, "boom")
    assert s.status[again.id].state is TaskState.FAILED
    assert len(s.next_batch()) == 1


def test_aliases_publish_merged_outputs() -> None:
    s = Scheduler({"a": t("a", outputs=["n"])}, {"coder": 1}, aliases={"count": "n"})
    s.next_batch()
    s.complete("a", {"n": 3})
    assert s.values["count"] == 3
