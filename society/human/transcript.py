"""The run's conversation as readable lines, colour-coded by role (plain when not a TTY).

Each message becomes one line (a plan: one line per task) of ``time sender  text``, as
`society.view.describe` words it; usage and heartbeats are left out as noise. Questions carry
their number and how to answer them, so what waits for the person is obvious.
"""

from __future__ import annotations

import time

from rich.text import Text

from bus import Envelope
from bus.payloads import Final, Question
from society.human.state import AskedQuestion
from society.view.colours import role_style
from society.view.describe import describe as describe_payload
from society.view.terminal_text import safe_line

__all__ = ["describe", "render"]


def describe(env: Envelope, asked: AskedQuestion | None = None) -> list[str] | None:
    """The lines that show a message, or None for messages not worth showing."""
    return describe_payload(env.payload, env, asked).lines


def render(env: Envelope, lines: list[str]) -> Text:
    """Lines of one message with a time and sender column, styled by the sender's role."""
    stamp = time.strftime("%H:%M:%S", time.localtime(env.ts / 1e6))
    style = role_style(env.role)
    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        text.append(f"{stamp} ", style="dim")
        text.append(f"{safe_line(env.sender):<14}", style=style)
        line_style = style if env.role == "human" or isinstance(env.payload, Question) else ""
        if isinstance(env.payload, Question | Final):
            line_style = "bold " + (line_style or style)
        text.append(f" {line}", style=line_style)
    return text
