"""`describe`: how every payload kind reads to a person, in the three forms the views use —
the timeline's one-line summary (``society replay``), the conversation's lines
(``society attach``) and the live view's event line (``society run``).

It is the one place that renders payloads: a new payload kind is taught here, and the
`match` ending in `assert_never` makes mypy say so until it is. Every string it gives is
one terminal line made safe by `society.view.terminal_text.safe_line` (payloads carry model and
program text: escape sequences in it are shown, never obeyed); markup is the printer's job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol, assert_never

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
    Payload,
    Plan,
    PlanDecision,
    PlanRequest,
    Presence,
    Question,
    Rating,
    Recall,
    TaskAssignment,
    TaskResult,
    ToolCall,
    Usage,
)
from roles.program import LINE as PRELUDE_LINE
from society.view.terminal_text import safe_line

__all__ = ["Asked", "Described", "describe"]


class Asked(Protocol):
    """A question as the person's conversation numbers it (`society.human.state`)."""

    @property
    def label(self) -> str:
        """``#n``: how the person names the question."""
        ...

    def how_to_answer(self) -> str:
        """The commands that answer it."""
        ...


@dataclass(frozen=True)
class Described:
    """One payload in each view's form."""

    summary: str
    """One line for the timeline (never empty)."""
    lines: list[str] | None = None
    """The conversation's lines (None: not shown there)."""
    event: str | None = None
    """The live view's event line (None: not notable)."""


def _cut(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _short(value: object, n: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return _cut(text, n)


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[-1]


def describe(p: Payload, env: Envelope | None = None, asked: Asked | None = None) -> Described:
    """How ``p`` (sent in ``env``; ``asked``: the question it asks or answers) reads, each
    string one line safe for a terminal."""
    said = _describe(p, env, asked)
    return Described(
        safe_line(said.summary),
        None if said.lines is None else [safe_line(line) for line in said.lines],
        None if said.event is None else safe_line(said.event),
    )


def _describe(p: Payload, env: Envelope | None, asked: Asked | None) -> Described:
    role = env.role if env is not None else ""
    instance = env.instance if env is not None else ""
    label = f"{asked.label} " if asked is not None else ""
    match p:
        case Goal():
            fork = f" (fork of {p.origin})" if p.origin else ""
            return Described(_cut(p.text) + fork, [f"goal: {p.text}"])
        case PlanRequest():
            why = f": {p.critique}" if p.critique else ""
            summary = _cut(f"revision {p.revision} try {p.attempt} ({p.reason}){why}")
            if p.reason == "initial":
                return Described(summary, [f"asks the planner for a plan for: {_short(p.goal)}"])
            detail = _short(p.critique or "; ".join(p.errors), 240)
            lines = [f"asks for plan {p.revision} ({p.reason}): {detail}"]
            if p.reason == "invalid":
                return Described(summary, lines)
            return Described(
                summary, lines, f"replan {p.revision} ({p.reason}): {p.critique or ''}"[:200]
            )
        case Plan():
            if p.error:
                return Described(
                    _cut(f"revision {p.revision} failed: {p.error}"),
                    [f"could not plan: {p.error}"],
                    f"planner failed: {p.error}"[:200],
                )
            lines = [f"plan {p.revision}: {len(p.tasks)} tasks"]
            for t in p.tasks:
                after = f" after {', '.join(t.depends_on)}" if t.depends_on else ""
                lines.append(f"  {t.id} ({t.role}{after}): {_short(t.description, 120)}")
            ids = ", ".join(t.id for t in p.tasks)
            return Described(_cut(f"revision {p.revision}: {ids}"), lines, lines[0])
        case PlanDecision():
            if p.accepted:
                merged = f", merged {p.merged}" if p.merged else ""
                text = f"plan {p.revision} accepted"
                return Described(_cut(f"revision {p.revision} accepted"), [text], text + merged)
            errors = "; ".join(p.errors)
            return Described(
                _cut(f"revision {p.revision} refused: {errors}"),
                [f"plan {p.revision} refused: {_short(errors, 240)}"],
                f"plan {p.revision} refused: {errors}"[:300],
            )
        case TaskAssignment():
            t = p.task
            return Described(
                _cut(f"{t.id} → {t.role} (try {p.attempt}): {t.description}"),
                [f"→ {t.role}: task {t.id} (try {p.attempt})"],
                f"▶ {t.id} ({t.role}) attempt {p.attempt}",
            )
        case TaskResult():
            mark = {"done": "✓", "failed": "✗"}.get(p.status, "■")
            error = f": {p.error}" if p.error else ""
            return Described(
                _cut(f"{p.task_id} {p.status}: {p.error or p.summary or ', '.join(p.outputs)}"),
                [
                    f"task {p.task_id} {p.status}: {_short(p.error or p.summary or _short(p.outputs), 200)}"
                ],
                f"{mark} {p.task_id} {p.status}{error}"[:200],
            )
        case ExecRequest():
            n = len(p.code.removeprefix(PRELUDE_LINE).splitlines())  # the program's own
            return Described(
                _cut(f"run {n} lines of {p.language}"), [f"runs code ({n} lines) in the sandbox"]
            )
        case ExecResult():
            how = "timed out" if p.timed_out else f"exit {p.exit_code}"
            last = _last_line(p.stderr)
            summary = (
                _cut(f"sandbox error: {p.error}")
                if p.error
                else _cut(f"{how} in {p.wall_s:.2f}s {last}")
            )
            lines = [f"code finished: {how} in {p.wall_s:.1f}s"]
            if p.exit_code == 0 and not p.error:
                return Described(summary, lines)
            task = env.task_id if env is not None else None
            event = f"  {task}: code failed ({p.error or how}) {last}"[:200]
            return Described(summary, lines, event)
        case Question():
            head = f"? {label}[{p.question_id}] {p.kind.replace('_', ' ')} for the human"
            lines = [f"{head} (default {p.default!r} after {p.timeout_s:g}s):"]
            lines += [f"  {line}" for line in p.text.splitlines()]
            if asked is not None:
                lines.append(f"  → {asked.how_to_answer()}")
            first = (p.text.splitlines() or [""])[0]
            event = (
                f"question {p.question_id} for the human ({p.kind.replace('_', ' ')}, "
                f"default {p.default!r} after {p.timeout_s:g}s): {first}"
            )
            summary = _cut(f"[{p.question_id}] {p.text} (default {p.default!r})")
            return Described(summary, lines, event[:300])
        case Answer():
            summary = _cut(f"[{p.question_id}] {p.by}: {p.text or p.approved}")
            if p.by == "default":
                return Described(
                    summary,
                    [f"no answer to {label}[{p.question_id}]: {p.note or 'default taken'}"],
                    f"no answer to {p.question_id}: {p.note}"[:300],
                )
            verdict = {True: "approve", False: "reject", None: ""}[p.approved]
            said = p.text if p.text != verdict else ""
            text = ": ".join(x for x in (verdict, said) if x)
            verb = {True: "approves", False: "rejects", None: "answers"}[p.approved]
            tail = f": {p.text}" if p.text and p.text != "approve" else ""
            return Described(
                summary,
                [f"{p.by} answers {label}[{p.question_id}]: {text}"],
                f"{p.by} {verb} {p.question_id}{tail}"[:300],
            )
        case Chat():
            to = f"@{p.to} " if p.to else ""
            line = f"{p.by or role} → {p.to or 'everyone'}: {p.text}"
            people = role == "human" or p.to == "human"
            return Described(_cut(f"{to}{p.text}"), [line], line[:300] if people else None)
        case Rating():
            comment = f": {p.comment}" if p.comment else ""
            return Described(
                _cut(f"{p.task_id} rated {p.score}/5 by {p.by}: {p.comment}"),
                [f"{p.by} rates task {p.task_id} {p.score}/5{comment}"],
                f"{p.by} rates {p.task_id} {p.score}/5 {p.comment}"[:200],
            )
        case Critique():
            shown = f"critique ({p.detector}) → {p.verdict}: {_short(p.summary, 240)}"
            return Described(
                _cut(f"{p.detector} → {p.verdict}: {p.summary}"),
                [shown] if p.verdict != "ok" else None,
                f"critic: {p.detector} → {p.verdict}: {p.summary}"[:200],
            )
        case Lesson():
            return Described(_cut(p.text), [f"lesson: {_short(p.text, 240)}"])
        case Usage():
            if p.kind == "sandbox":
                return Described(f"sandbox {p.sandbox_s:.2f}s")
            if p.error or p.cancelled:
                return Described(_cut(f"{p.model}: {'cancelled' if p.cancelled else p.error}"))
            retried = f", {len(p.retries)} retried" if p.retries else ""
            if p.tool_calls:
                wanted = ", ".join(c.name for c in p.tool_calls)
                return Described(_cut(f"{p.model}: asks for tools {wanted}{retried}"))
            return Described(
                f"{p.model}: {p.tokens_in}+{p.tokens_out} tokens, {p.latency_s:.2f}s{retried}"
            )
        case ToolCall():
            outcome = f"error: {p.error}" if p.error is not None else f"{p.size:,} chars"
            line = f"tool {p.server}.{p.tool}({_short(p.arguments, 120)}) → {outcome}"
            return Described(_cut(line), [line], line[:200])
        case Control():
            by = f" by {p.by}" if p.by else ""
            reason = f": {p.reason}" if p.reason else ""
            return Described(
                _cut(f"{p.action} {' '.join(p.task_ids)} {p.reason}"),
                [f"{p.action}{by}{reason}"],
                f"control: {p.action} {p.reason}"[:200],
            )
        case Presence():
            summary = f"{p.status} ({p.role}, pid {p.pid})" if p.pid else p.status
            if p.role != "human" or p.status == "heartbeat":
                return Described(summary)
            line = f"{instance} {'attached' if p.status == 'up' else 'left'}"
            return Described(summary, [line], line)
        case Final():
            lines = [f"final: {p.status}" + (f": {p.reason}" if p.reason else "")]
            if p.answer:
                lines.append(f"  answer: {_short(p.answer, 400)}")
            elif p.outputs:
                lines.append(f"  results so far: {_short(p.outputs, 400)}")
            return Described(
                _cut(f"{p.status}: {p.reason or p.answer or ''}"),
                lines,
                f"final: {p.status} {p.reason}"[:200],
            )
        case DeadLetter():
            return Described(
                _cut(f"on {p.subject}: {p.error}"), [f"dead letter on {p.subject}: {p.error}"]
            )
        case Recall():
            ids = ", ".join(f"#{lesson.id}" for lesson in p.lessons) or "nothing"
            line = f"recalls {ids} from memory for its prompt"
            return Described(_cut(line), [line, *(f"  #{x.id}: {x.text}" for x in p.lessons)])
        case _:
            assert_never(p)
