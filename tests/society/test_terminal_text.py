"""Untrusted text reaches the terminal as text: controls shown escaped, markup not obeyed."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from bus import Envelope
from bus.payloads import Artifact, Chat, ExecResult, Final, Plan, TaskResult, TaskSpec
from society.view.describe import describe
from society.view.live import LiveView, render_summary
from society.view.progress import RunState
from society.view.terminal_text import block, line, safe_block, safe_line

pytestmark = pytest.mark.timeout(30)

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
"""What must never reach the terminal raw (newline and tab are checked apart)."""
NASTY = "a\x1b[2J\x1b]0;title\x07b\rc\x08d\x7fe\x9b31mf\u202eg\th\ni"


def test_a_line_escapes_every_control_newlines_too() -> None:
    assert safe_line(NASTY) == (
        "a\\x1b[2J\\x1b]0;title\\x07b\\rc\\x08d\\x7fe\\x9b31mf\\u202eg\\th\\ni"
    )
    assert safe_line("héllo ✓ [bold]x[/]") == "héllo ✓ [bold]x[/]"  # text, not markup: Text's job


def test_a_block_keeps_newlines_and_tabs_and_reads_crlf_as_a_newline() -> None:
    assert safe_block("one\r\ntwo\tthree\x1b[0m\n") == "one\ntwo\tthree\\x1b[0m\n"
    assert safe_block(safe_block(NASTY)) == safe_block(NASTY)  # escaping twice changes nothing


def test_rich_texts_do_not_obey_markup_or_emoji_codes() -> None:
    out = io.StringIO()
    Console(file=out, color_system=None, width=100).print(line("[red]x[/] :warning:"), block("y"))
    assert out.getvalue() == "[red]x[/] :warning: y\n"


def envelope(payload: object, sender: str = "coder/1", task: str | None = "t1") -> Envelope:
    return Envelope.new("r1", sender, payload, task_id=task)  # type: ignore[arg-type]


HOSTILE = [
    envelope(Plan(revision=1, tasks=[TaskSpec(id="t1", role="coder", description=NASTY)])),
    envelope(ExecResult(exit_code=1, stdout=NASTY, stderr=NASTY, wall_s=0.1)),
    envelope(TaskResult(task_id="t1", role="coder", status="failed", error=NASTY)),
    envelope(Chat(text=NASTY, to="human"), sender="human/ann", task=None),
    envelope(
        Final(
            status="failed",
            answer=f"[bold red]{NASTY}[/] :warning:",
            reason=f"[link=http://x]{NASTY}[/link]",
            artifacts=[Artifact(name="n", path=f"artifacts/t1/{NASTY}", size=1, sha256="0")],
        ),
        sender="manager/0",
        task=None,
    ),
]


def test_describe_gives_single_safe_lines() -> None:
    for env in HOSTILE:
        said = describe(env.payload, env)
        for text in (said.summary, *(said.lines or []), said.event or ""):
            assert not RAW.search(text) and "\n" not in text, text


@pytest.mark.parametrize("terminal", [False, True])
def test_the_live_view_and_the_summary_print_no_raw_control_and_no_markup(terminal: bool) -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, color_system=None, width=300)
    state = RunState("r1")
    with LiveView(console, state) as view:
        for env in HOSTILE:
            view.update(env)
    render_summary(console, state, Path("runs/r1"), None)
    printed = out.getvalue()
    if terminal:  # the live display's own cursor moves are the only escapes allowed
        printed = re.sub(r"\x1b\[\?25[lh]|\x1b\[2K|\x1b\[\d*A|\r", "", printed)
    assert not RAW.search(printed), repr(printed)
    assert "[bold red]" in printed and ":warning:" in printed  # shown, not obeyed
    assert "[link=http://x]" in printed
    assert "\\x1b[2J\\x1b]0;title\\x07" in printed
