"""A resumed run's log as an uninterrupted run would have written it (`uncut`), and the
scripted answers a resumed run has left (`remaining_script`)."""

from __future__ import annotations

from bus import Envelope
from bus import payloads as p
from society.models.spec import ScriptedAnswer
from society.run.resumption import remaining_script
from society.run.uncut import uncut

from .logs import envelopes, records

MARK = p.Control(action="resumed", reason="continued", by="runner")


def _resumed_log() -> tuple[list[Envelope], list[Envelope]]:
    """The synthetic run, stopped while coder task ``a`` was under way and resumed."""
    goal, req, plan, ta, tb, ua, xa, ra, da, db, crit, final = envelopes()
    cut_usage = ta.reply("coder/0", p.Usage(kind="model", model="m", answer="code"))
    cut_exec = ta.reply("coder/0", p.ExecRequest(code="print(1)", timeout_s=5))
    mark = Envelope.new(goal.run_id, "runner/0", MARK)
    done_before = [goal, req, plan, ta, tb, db]
    log = [*done_before, cut_usage, cut_exec, mark, ua, xa, ra, da, crit, final]
    return log, [cut_usage, cut_exec, mark]


def test_uncut_leaves_out_the_work_a_stop_cut_off_and_the_mark() -> None:
    log, cut = _resumed_log()
    kept = [r.envelope for r in uncut(records(log))]
    assert kept == [e for e in log if e not in cut]


def test_uncut_keeps_finished_work_and_the_marks_when_asked() -> None:
    log, cut = _resumed_log()
    kept = [r.envelope for r in uncut(records(log), marks=True)]
    assert kept == [e for e in log if e not in cut[:2]]


def test_a_log_that_just_stopped_is_cut_at_its_end() -> None:
    log, _ = _resumed_log()
    stopped = log[:8]  # the coder's call and program were under way
    assert [r.envelope for r in uncut(records(stopped), stopped=True)] == log[:6]
    assert [r.envelope for r in uncut(records(stopped))] == stopped


def test_remaining_script_drops_each_answer_the_log_served_once() -> None:
    script = {
        "coder": [ScriptedAnswer(answer="code"), ScriptedAnswer(answer="more code")],
        "researcher": [ScriptedAnswer(answer={"outputs": {"b": 2}})],
    }
    log, _ = _resumed_log()
    left = remaining_script(script, log)
    # "code" reached the log twice (cut off, then served again from the log): one answer
    assert [a.answer for a in left["coder"]] == ["more code"]
    assert [a.answer for a in left["researcher"]] == [{"outputs": {"b": 2}}]  # never asked
