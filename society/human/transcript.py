"""The run's conversation as readable lines, colour-coded by role (plain when not a TTY).

Each message becomes one line (a plan: one line per task) of ``time sender  text``;
usage and heartbeats are left out as noise. Questions carry their number and how to
answer them, so what waits for the person is obvious.
"""

from __future__ import annotations

import json
import time

from rich.text import Text

from bus import Envelope
from bus.payloads import (
    Answer,
    Chat,
    Control,
    Critique,
    DeadLetter,
    ExecRequest,
    ExecResult,
    Final,
    Goal,
    Lesson,
    Plan,
    PlanDecision,
    PlanRequest,
    Presence,
    Question,
    Rating,
    TaskAssignment,
    TaskResult,
)
from society.colours import role_style
from society.human.state import AskedQuestion

__all__ = ["describe", "render"]


def _short(value: object, n: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def describe(env: Envelope, asked: AskedQuestion | None = None) -> list[str] | None:
    """The lines that show a message, or None for messages not worth showing."""
    p = env.payload
    match p:
        case Goal():
            return [f"goal: {p.text}"]
        case PlanRequest():
            if p.reason == "initial":
                return [f"asks the planner for a plan for: {_short(p.goal)}"]
            why = f": {_short(p.critique or '; '.join(p.errors), 240)}"
            return [f"asks for plan {p.revision} ({p.reason}){why}"]
        case Plan() if p.error:
            return [f"could not plan: {p.error}"]
        case Plan():
            lines = [f"plan {p.revision}: {len(p.tasks)} tasks"]
            for t in p.tasks:
                after = f" after {', '.join(t.depends_on)}" if t.depends_on else ""
                lines.append(f"  {t.id} ({t.role}{after}): {_short(t.description, 120)}")
            return lines
        case PlanDecision() if p.accepted:
            return [f"plan {p.revision} accepted"]
        case PlanDecision():
            return [f"plan {p.revision} refused: {_short('; '.join(p.errors), 240)}"]
        case TaskAssignment():
            return [f"→ {p.task.role}: task {p.task.id} (try {p.attempt})"]
        case TaskResult():
            detail = p.error or p.summary or _short(p.outputs)
            return [f"task {p.task_id} {p.status}: {_short(detail, 200)}"]
        case ExecRequest():
            return [f"runs code ({len(p.code.splitlines())} lines) in the sandbox"]
        case ExecResult():
            how = "timed out" if p.timed_out else f"exit {p.exit_code}"
            return [f"code finished: {how} in {p.wall_s:.1f}s"]
        case Question():
            label = f"{asked.label} " if asked is not None else ""
            head = f"? {label}[{p.question_id}] {p.kind.replace('_', ' ')} for the human"
            lines = [f"{head} (default {p.default!r} after {p.timeout_s:g}s):"]
            lines += [f"  {line}" for line in p.text.splitlines()]
            if asked is not None:
                lines.append(f"  → {asked.how_to_answer()}")
            return lines
        case Answer() if p.by == "default":
            label = f"{asked.label} " if asked is not None else ""
            return [f"no answer to {label}[{p.question_id}]: {p.note or 'default taken'}"]
        case Answer():
            label = f"{asked.label} " if asked is not None else ""
            verdict = {True: "approve", False: "reject", None: ""}[p.approved]
            said = p.text if p.text != verdict else ""
            text = ": ".join(x for x in (verdict, said) if x)
            return [f"{p.by} answers {label}[{p.question_id}]: {text}"]
        case Chat():
            who = p.by or env.role
            return [f"{who} → {p.to or 'everyone'}: {p.text}"]
        case Rating():
            comment = f": {p.comment}" if p.comment else ""
            return [f"{p.by} rates task {p.task_id} {p.score}/5{comment}"]
        case Critique() if p.verdict != "ok":
            return [f"critique ({p.detector}) → {p.verdict}: {_short(p.summary, 240)}"]
        case Lesson():
            return [f"lesson: {_short(p.text, 240)}"]
        case Control():
            by = f" by {p.by}" if p.by else ""
            reason = f": {p.reason}" if p.reason else ""
            return [f"{p.action}{by}{reason}"]
        case Presence() if p.role == "human" and p.status != "heartbeat":
            return [f"{env.instance} {'attached' if p.status == 'up' else 'left'}"]
        case Final():
            lines = [f"final: {p.status}" + (f": {p.reason}" if p.reason else "")]
            if p.answer:
                lines.append(f"  answer: {_short(p.answer, 400)}")
            elif p.outputs:
                lines.append(f"  results so far: {_short(p.outputs, 400)}")
            return lines
        case DeadLetter():
            return [f"dead letter on {p.subject}: {p.error}"]
        case _:
            return None


def render(env: Envelope, lines: list[str]) -> Text:
    """Lines of one message with a time and sender column, styled by the sender's role."""
    stamp = time.strftime("%H:%M:%S", time.localtime(env.ts / 1e6))
    style = role_style(env.role)
    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        text.append(f"{stamp} ", style="dim")
        text.append(f"{env.sender:<14}", style=style)
        line_style = style if env.role == "human" or isinstance(env.payload, Question) else ""
        if isinstance(env.payload, Question | Final):
            line_style = "bold " + (line_style or style)
        text.append(f" {line}", style=line_style)
    return text
