"""What a person types, parsed; and the conversation state that says what waits for them."""

from __future__ import annotations

import time

import pytest

from bus import Envelope, new_id
from bus.payloads import Answer, Final, Presence, Question, TaskAssignment, TaskResult, TaskSpec
from society.human.commands import (
    Approve,
    CommandError,
    Rate,
    Reject,
    Reply,
    Say,
    Simple,
    Steer,
    parse_command,
)
from society.human.state import Conversation
from society.human.transcript import describe, render


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("approve", Approve(None)),
        ("approve #2", Approve("#2")),
        ("reject too broad", Reject(None, "too broad")),
        ("reject #1 too broad", Reject("#1", "too broad")),
        ("reject manager-0-1 too broad", Reject("manager-0-1", "too broad")),
        ("answer #3 replan use a loop", Reply("#3", "replan use a loop")),
        ("answer Atkin please", Reply(None, "Atkin please")),
        ("say hello all", Say(None, "hello all")),
        ("say @planner keep it short", Say("planner", "keep it short")),
        ("pause", Steer("pause")),
        ("abort out of time", Steer("abort", "out of time")),
        ("rate explain 4 clear", Rate("explain", 4, "clear")),
        ("rate explain 5", Rate("explain", 5, "")),
        ("rate answer 2 expect=319 count both ends", Rate("answer", 2, "count both ends", "319")),
        ("rate answer 1 check=^3\\d+$", Rate("answer", 1, "", None, "^3\\d+$")),
        ("rate answer 3 expected the year", Rate("answer", 3, "expected the year")),
        ("  QUIT ", Simple("quit")),
        ("?", Simple("help")),
    ],
)
def test_commands_parse(line: str, command: object) -> None:
    assert parse_command(line, known_ids={"manager-0-1"}) == command


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("reject", "say why: reject [#n] <reason>"),
        ("reject #2", "say why"),
        ("rate explain 6", "rate <task> <1-5> [comment]"),
        ("rate explain", "rate <task> <1-5>"),
        ("say @ hi", "name the role after @"),
        ("pause now", "pause takes no arguments"),
        ("approve it", "approve takes only a question"),
        ("dance", "unknown command 'dance'; type help"),
    ],
)
def test_bad_commands_say_how_to_write_them(line: str, says: str) -> None:
    with pytest.raises(CommandError, match=says.replace("[", r"\[").replace("?", r"\?")):
        parse_command(line)


def test_blank_lines_are_nothing() -> None:
    assert parse_command("   ") is None


def env(sender: str, payload: object, ts: int = 0) -> Envelope:
    return Envelope(
        run_id="r1", sender=sender, id=new_id(), ts=ts or time.time_ns() // 1000, payload=payload
    )


def test_questions_are_numbered_and_settled_by_the_first_answer() -> None:
    conv = Conversation()
    approval = Question(
        question_id="manager-0-1", kind="plan_approval", text="ok?", default="approve", timeout_s=60
    )
    question = Question(
        question_id="researcher-0-1", text="which?", options=["a", "b"], default="a", timeout_s=60
    )
    first = conv.apply(env("manager/0", approval))
    second = conv.apply(env("researcher/0", question))
    assert first is not None and second is not None
    assert (first.label, second.label) == ("#1", "#2")
    assert first.how_to_answer() == "approve #1  |  reject #1 <reason>"
    assert second.how_to_answer() == "answer #2 <a|b> ..."
    assert [q.label for q in conv.pending()] == ["#1", "#2"]
    assert conv.find(None, {"plan_approval"}) is first
    with pytest.raises(CommandError, match=r"several are pending \(#1, #2\): name one"):
        conv.find(None)
    assert conv.find("researcher-0-1") is second
    conv.apply(env("human/ada", Answer(question_id="manager-0-1", approved=True, by="ada")))
    conv.apply(
        env("human/bob", Answer(question_id="manager-0-1", approved=False, text="no", by="bob"))
    )
    assert first.answer is not None and first.answer.by == "ada"  # the first one counts
    assert conv.pending() == [second]
    with pytest.raises(CommandError, match="no plan waiting for approval is pending"):
        conv.find(None, {"plan_approval"})
    with pytest.raises(CommandError, match="no question #7"):
        conv.find("#7")
    conv.apply(env("manager/0", Final(status="aborted")))
    assert conv.pending() == []


def test_a_question_long_past_its_timeout_no_longer_waits() -> None:
    conv = Conversation()
    old = Question(question_id="q", text="?", default="x", timeout_s=1)
    conv.apply(env("coder/0", old, ts=1_000_000))  # asked at t=1 s
    assert conv.pending(now=1.5) != []
    assert conv.pending(now=100.0) == []


def test_tasks_with_results_and_people_present_are_known() -> None:
    conv = Conversation()
    spec = TaskSpec(id="t1", role="researcher", description="d")
    conv.apply(env("manager/0", TaskAssignment(task=spec, goal="g")))
    conv.apply(env("researcher/0", TaskResult(task_id="t1", role="researcher", status="done")))
    conv.apply(env("human/ada", Presence(status="up", role="human"), ts=10_000_000))
    conv.apply(env("human/bob", Presence(status="up", role="human"), ts=10_000_000))
    conv.apply(env("human/bob", Presence(status="down", role="human"), ts=11_000_000))
    assert conv.results == {"t1": "done"}
    assert conv.attached(now=12.0) == ["ada"]
    assert conv.attached(now=1000.0) == []  # no heartbeat for long: gone


def test_transcript_lines_name_the_question_and_how_to_answer() -> None:
    conv = Conversation()
    q = env(
        "manager/0",
        Question(
            question_id="manager-0-1",
            kind="plan_approval",
            text="Approve plan 1?\n  a (coder): x",
            default="approve",
            timeout_s=30,
        ),
    )
    asked = conv.apply(q)
    lines = describe(q, asked)
    assert lines == [
        "? #1 [manager-0-1] plan approval for the human (default 'approve' after 30s):",
        "  Approve plan 1?",
        "    a (coder): x",
        "  → approve #1  |  reject #1 <reason>",
    ]
    default = env(
        "manager/0",
        Answer(
            question_id="manager-0-1",
            text="approve",
            approved=True,
            by="default",
            note="nobody answered within 30s (no human attached); proceeding on the default 'approve'",
        ),
    )
    assert describe(default, conv.apply(default)) == [
        "no answer to #1 [manager-0-1]: nobody answered within 30s (no human attached); "
        "proceeding on the default 'approve'"
    ]
    text = render(q, lines or []).plain
    assert text.splitlines()[0].endswith(
        "manager/0      ? #1 [manager-0-1] plan approval for the human (default 'approve' after 30s):"
    )
    assert describe(env("human/ada", Presence(status="heartbeat", role="human"))) is None
