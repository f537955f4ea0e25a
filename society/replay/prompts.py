"""What a model saw and answered: the Nth model call of a log with its stored request
(``prompts/<sha256>.json`` beside the log, or in a bundle)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from bus import Envelope
from bus.logfile import LogRecord
from bus.payloads import Usage
from society.errors import RunError
from society.prompts import load_prompt
from society.view.terminal_text import safe_block

__all__ = ["ModelCall", "model_calls", "show_prompt"]


@dataclass(frozen=True)
class ModelCall:
    """One model call of a log: its usage message and where it is."""

    number: int
    """1-based among the log's model calls."""
    line: int
    """1-based place in the log."""
    env: Envelope
    usage: Usage


def model_calls(records: list[LogRecord]) -> list[ModelCall]:
    """The log's model calls, in order."""
    calls: list[ModelCall] = []
    for line, record in enumerate(records, start=1):
        env = record.envelope
        if env is not None and isinstance(env.payload, Usage) and env.payload.kind == "model":
            calls.append(ModelCall(len(calls) + 1, line, env, env.payload))
    return calls


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    return (
        content if isinstance(content, str) else json.dumps(content, indent=1, ensure_ascii=False)
    )


def show_prompt(records: list[LogRecord], run_dir: Path | None, n: int, out: Console) -> None:
    """Print model call ``n``: the request as sent and the answer."""
    calls = model_calls(records)
    if not 1 <= n <= len(calls):
        msg = f"--prompt {n}: the log has {len(calls)} model call(s) (1..{len(calls)})"
        raise RunError(msg)
    call = calls[n - 1]
    u, env = call.usage, call.env
    task = f" · task {env.task_id}" if env.task_id else ""
    out.print(
        f"[bold]model call {n}[/] (message {call.line}) · {env.sender}{task} · {escape(u.model)}",
        highlight=False,
    )
    request = load_prompt(run_dir, u.prompt) if run_dir is not None and u.prompt else None
    if request is None:
        why = "this log names no stored prompt" if not u.prompt else "its prompt file is missing"
        out.print(f"[yellow]{why}[/] (prompts/{u.prompt or '?'}.json)", highlight=False)
    else:
        out.print(f"[dim]prompt {u.prompt}[/]", highlight=False)
        for key in ("endpoint", "structured", "max_tokens", "timeout_s"):
            if request.get(key):
                out.print(f"[dim]{key}: {escape(str(request[key]))}[/]", highlight=False)
        tools = [t.get("name", "?") for t in request.get("tools") or []]
        if tools:
            out.print(f"[dim]tools offered: {', '.join(tools)}[/]", highlight=False)
        for message in request.get("messages", []):
            who = message.get("source") or ""
            out.rule(f"{message.get('type', '')} {who}", align="left", style="dim")
            out.print(escape(safe_block(_content(message))), highlight=False)
    out.rule("answer", align="left", style="bold")
    for retry in u.retries:
        status = f" (HTTP {retry.status})" if retry.status else ""
        out.print(f"[yellow]retried{status}: {escape(retry.error)}[/]", highlight=False)
    if u.tool_calls:
        for c in u.tool_calls:
            out.print(f"tool call {escape(c.name)}({escape(c.arguments)})", highlight=False)
    elif u.answer is not None:
        out.print(escape(safe_block(u.answer)), highlight=False)
    else:
        out.print(f"[red]{'cancelled' if u.cancelled else escape(u.error or 'no answer')}[/]")
    if u.finish_reason == "length":
        out.print("[yellow]cut off at max_tokens[/]")
    out.print(f"[dim]{u.tokens_in} tokens in, {u.tokens_out} out, {u.latency_s:.2f} s[/]")
