from __future__ import annotations

import pytest

from bus import SubjectError, subjects
from bus.subjects import Channel


def test_build_and_parse_are_inverse() -> None:
    for channel in Channel:
        for role in (None, "coder"):
            subj = subjects.subject("run-1", channel, role)
            parsed = subjects.parse(subj)
            assert (parsed.run_id, parsed.channel, parsed.role) == ("run-1", channel, role)


def test_dotted_channels_parse_longest_first() -> None:
    assert subjects.parse("society.r.plan.request").channel is Channel.PLAN_REQUEST
    assert subjects.parse("society.r.plan").channel is Channel.PLAN
    assert subjects.parse("society.r.task.coder").role == "coder"


@pytest.mark.parametrize("bad", ["a.b", "*", ">", "", "a b", "x" * 129])
def test_tokens_are_validated(bad: str) -> None:
    with pytest.raises(SubjectError):
        subjects.subject(bad, Channel.GOAL)
    with pytest.raises(SubjectError):
        subjects.subject("run", Channel.TASK, bad)


@pytest.mark.parametrize(
    "bad", ["other.r.goal", "society.r", "society.r.nope", "society.r.task.a.b"]
)
def test_parse_refuses_foreign_subjects(bad: str) -> None:
    with pytest.raises(SubjectError):
        subjects.parse(bad)


def test_wildcard_matching() -> None:
    assert subjects.matches("society.>", "society.r.goal")
    assert subjects.matches("society.*.task.*", "society.r.task.coder")
    assert not subjects.matches("society.*.task.*", "society.r.task")
    assert not subjects.matches("society.r.>", "society.r")
    assert subjects.matches(subjects.run_wildcard("r"), "society.r.plan.request")
    assert not subjects.matches(subjects.run_wildcard("r"), "society.r2.goal")


def test_work_queue_names_belong_to_their_run() -> None:
    name = subjects.consumer_name("run-1", "task-coder")
    assert name == "run-1--task-coder"
    assert subjects.run_of_consumer(name) == "run-1"
    assert subjects.run_of_consumer("someone-elses") is None
    with pytest.raises(SubjectError):
        subjects.consumer_name("run.1", "task-coder")


def test_patterns_over_every_run() -> None:
    assert subjects.any_run(Channel.GOAL) == "society.*.goal"
    assert subjects.any_run(Channel.TASK, "*") == "society.*.task.*"
    assert subjects.matches(subjects.any_run(Channel.TASK, "coder"), "society.r9.task.coder")
    with pytest.raises(SubjectError):
        subjects.any_run(Channel.TASK, "co>der")
