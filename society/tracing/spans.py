"""A run's spans, folded from its messages: the run, each plan revision, each task attempt,
each model call, tool call, sandbox execution and question to a person.

Ids are derived, not random: the trace id from the run id and a span id from the message
that opens the span (a plan revision's from its number), so the spans of a live run, of a
worker on another machine and of ``society trace`` on the log afterwards are the same
spans. The envelope carries the trace context that way: ``run_id`` names the trace and
``parent_id`` the causing message, whose span is the parent. Attributes follow the
OpenTelemetry GenAI semantic conventions (``gen_ai.*``) where one applies.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal, assert_never

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
    Recall,
    TaskAssignment,
    TaskResult,
    ToolCall,
    Usage,
)

__all__ = ["SpanBuilder", "SpanRecord", "span_id_of", "trace_id_of"]

Attr = str | int | float | bool
Key = tuple[str, ...]


def _hash(bits: int, *parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return int.from_bytes(digest[: bits // 8], "big") or 1


def trace_id_of(run_id: str) -> int:
    """The run's trace id (128 bits)."""
    return _hash(128, "trace", run_id)


def span_id_of(*parts: str) -> int:
    """A span id (64 bits) named by ``parts``: ``("msg", envelope id)``, ``("run", run id)``."""
    return _hash(64, *parts)


@dataclass
class SpanRecord:
    """One span, finished: what an exporter needs (times in ns since the epoch)."""

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    start_ns: int
    end_ns: int = 0
    kind: Literal["internal", "client"] = "internal"
    attributes: dict[str, Attr] = field(default_factory=dict)
    events: list[tuple[str, int, dict[str, Attr]]] = field(default_factory=list)
    error: str | None = None
    closer: str = ""
    """The sender of the message that ended the span (who exports it live)."""


def _ns(env: Envelope) -> int:
    return env.ts * 1000


class SpanBuilder:
    """Folds one run's messages, in order, into finished spans."""

    def __init__(self) -> None:
        self.run_id: str | None = None
        self.trace_id = 0
        self._owner: dict[str, int] = {}
        self._open: dict[Key, SpanRecord] = {}
        self._tasks: dict[str, Key] = {}
        self._plans_closed: set[int] = set()
        self._last_ns = 0

    @property
    def run_span(self) -> int:
        """The run's root span id."""
        return span_id_of("run", self.run_id or "")

    def plan_span(self, revision: int) -> int:
        """The span id of plan revision ``revision``."""
        return span_id_of("plan", self.run_id or "", str(revision))

    def _parent_of(self, env: Envelope) -> int:
        if env.parent_id is not None and env.parent_id in self._owner:
            return self._owner[env.parent_id]
        if env.task_id is not None and env.task_id in self._tasks:
            return self._open[self._tasks[env.task_id]].span_id
        return self.run_span

    def _start(self, key: Key, env: Envelope, name: str, parent: int, span_id: int) -> SpanRecord:
        span = SpanRecord(name, self.trace_id, span_id, parent, _ns(env))
        self._open[key] = span
        return span

    def _close(self, key: Key, env: Envelope, error: str | None = None) -> SpanRecord | None:
        span = self._open.pop(key, None)
        if span is None:
            return None
        span.end_ns = max(_ns(env), span.start_ns)
        span.closer = env.sender
        span.error = span.error or error
        if key[0] == "task" and self._tasks.get(key[1]) == key:
            del self._tasks[key[1]]
        return span

    def take(self, env: Envelope) -> list[SpanRecord]:
        """Fold one message in; returns the spans it ends (a leaf span is one message)."""
        if self.run_id is None:
            self.run_id = env.run_id
            self.trace_id = trace_id_of(env.run_id)
        if env.run_id != self.run_id:
            return []
        self._last_ns = max(self._last_ns, _ns(env))
        owner = self._parent_of(env)
        done: list[SpanRecord] = []
        p = env.payload
        key: Key
        match p:
            case Goal():
                if ("run",) not in self._open:
                    run = self._start(("run",), env, "run", 0, self.run_span)
                    run.parent_id = None
                    run.attributes.update(
                        {"society.run_id": env.run_id, "society.goal": p.text[:500]}
                    )
                owner = self.run_span
            case PlanRequest():
                owner = self._plan_request(env, p, done)
            case Plan():
                owner = self.plan_span(p.revision)
                key = ("plan", str(p.revision))
                if key in self._open:
                    self._open[key].attributes["society.plan.tasks"] = len(p.tasks)
                if p.status != "proposed":
                    closed = self._close(key, env, p.error or p.status)
                    done += [closed] if closed else []
            case PlanDecision():
                owner = self.plan_span(p.revision)
                key = ("plan", str(p.revision))
                if key in self._open:
                    self._open[key].attributes["society.plan.accepted"] = p.accepted
                    if p.merged:
                        self._open[key].attributes["society.plan.merged"] = len(p.merged)
                if p.accepted:
                    closed = self._close(key, env)
                    self._plans_closed.add(p.revision)
                    done += [closed] if closed else []
            case TaskAssignment():
                key = ("task", p.task.id, str(p.attempt))
                span = self._start(
                    key, env, f"task {p.task.id}", self.plan_span(p.plan_revision),
                    span_id_of("msg", env.id),
                )  # fmt: skip
                span.attributes.update(
                    {
                        "society.task.id": p.task.id,
                        "society.task.role": p.task.role,
                        "society.task.attempt": p.attempt,
                        "society.plan.revision": p.plan_revision,
                        "society.task.value": p.task.value,
                        "society.task.effort": p.task.effort,
                    }
                )
                self._tasks[p.task.id] = key
                owner = span.span_id
            case TaskResult():
                key = ("task", p.task_id, str(p.attempt))
                if key in self._open:
                    owner = self._open[key].span_id
                    self._open[key].attributes["society.task.status"] = p.status
                    error = (
                        p.error or p.status if p.status in ("failed", "budget_exhausted") else None
                    )
                    closed = self._close(key, env, error)
                    done += [closed] if closed else []
            case ExecRequest():
                span = self._start(
                    ("exec", env.id), env, "sandbox execute", owner, span_id_of("msg", env.id)
                )
                span.attributes["society.sandbox.timeout_s"] = p.timeout_s
                owner = span.span_id
            case ExecResult():
                key = ("exec", env.parent_id or "")
                if key in self._open:
                    span = self._open[key]
                    owner = span.span_id
                    span.attributes.update(
                        {
                            "society.sandbox.exit_code": -1 if p.exit_code is None else p.exit_code,
                            "society.sandbox.wall_s": p.wall_s,
                            "society.sandbox.timed_out": p.timed_out,
                            "society.sandbox.oom_killed": p.oom_killed,
                        }
                    )
                    error = p.error or ("timed out" if p.timed_out else None)
                    error = error or ("out of memory" if p.oom_killed else None)
                    closed = self._close(key, env, error)
                    done += [closed] if closed else []
            case Usage():
                if p.kind == "model":
                    done.append(self._model_call(env, p, owner))
            case ToolCall():
                done.append(self._tool_call(env, p, owner))
            case Question():
                span = self._start(
                    ("question", p.question_id), env, f"ask {p.kind.replace('_', ' ')}", owner,
                    span_id_of("msg", env.id),
                )  # fmt: skip
                span.attributes.update(
                    {"society.question.kind": p.kind, "society.question.default": p.default}
                )
                owner = span.span_id
            case Answer():
                key = ("question", p.question_id)
                if key in self._open:
                    span = self._open[key]
                    owner = span.span_id
                    span.attributes["society.answer.by"] = p.by
                    if p.approved is not None:
                        span.attributes["society.answer.approved"] = p.approved
                    closed = self._close(key, env)
                    done += [closed] if closed else []
            case Final():
                done += self.finish(env, p.status)
            case (
                Chat()
                | Rating()
                | Critique()
                | Lesson()
                | Recall()
                | Control()
                | Presence()
                | DeadLetter()
            ):
                pass
            case _:
                assert_never(p)
        self._owner[env.id] = owner
        return done

    def _plan_request(self, env: Envelope, p: PlanRequest, done: list[SpanRecord]) -> int:
        key = ("plan", str(p.revision))
        if key not in self._open and p.revision not in self._plans_closed:
            for older in [k for k in self._open if k[0] == "plan" and int(k[1]) < p.revision]:
                closed = self._close(older, env, "superseded")
                done += [closed] if closed else []
            span = self._start(
                key, env, f"plan revision {p.revision}", self.run_span, self.plan_span(p.revision)
            )
            span.attributes.update(
                {"society.plan.revision": p.revision, "society.plan.reason": p.reason}
            )
        if key in self._open:
            self._open[key].attributes["society.plan.attempts"] = p.attempt
        return self.plan_span(p.revision)

    def _model_call(self, env: Envelope, p: Usage, parent: int) -> SpanRecord:
        end = _ns(env)
        waited = int(p.rate_wait_s * 1e9)
        span = SpanRecord(
            f"chat {p.model}",
            self.trace_id,
            span_id_of("msg", env.id),
            parent,
            end - int(p.latency_s * 1e9) - waited,
            end,
            kind="client",
            closer=env.sender,
        )
        span.attributes.update(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": p.model,
                "gen_ai.usage.input_tokens": p.tokens_in,
                "gen_ai.usage.output_tokens": p.tokens_out,
                "society.cost": p.cost,
                "society.role": env.role,
            }
        )
        if p.finish_reason:
            span.attributes["gen_ai.response.finish_reasons"] = p.finish_reason
        if p.prompt:
            span.attributes["society.prompt"] = p.prompt
        if waited:
            span.attributes["society.rate_limit.wait_s"] = p.rate_wait_s
            span.events.append(("rate limit wait", span.start_ns, {"wait_s": p.rate_wait_s}))
        for retry in p.retries:
            attrs: dict[str, Attr] = {"error": retry.error[:200], "wait_s": retry.wait_s}
            if retry.status is not None:
                attrs["http.response.status_code"] = retry.status
            span.events.append(("retry", span.start_ns, attrs))
        span.error = p.error or ("cancelled" if p.cancelled else None)
        return span

    def _tool_call(self, env: Envelope, p: ToolCall, parent: int) -> SpanRecord:
        end = _ns(env)
        span = SpanRecord(
            f"execute_tool {p.tool}",
            self.trace_id,
            span_id_of("msg", env.id),
            parent,
            end - int(p.latency_s * 1e9),
            end,
            closer=env.sender,
            error=p.error,
        )
        span.attributes.update(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": p.tool,
                "gen_ai.tool.call.id": p.call_id,
                "society.tool.server": p.server,
                "society.tool.result_size": p.size,
                "society.tool.truncated": p.truncated,
            }
        )
        return span

    def finish(self, env: Envelope | None = None, status: str = "unfinished") -> list[SpanRecord]:
        """End every open span (the run's last): at ``env`` (the final message), else at the
        last message seen. Spans still open were cut short by the run's end."""
        done = []
        for key in [k for k in self._open if k != ("run",)]:
            span = self._open.pop(key)
            span.end_ns = max(_ns(env) if env else self._last_ns, span.start_ns)
            span.closer = env.sender if env else ""
            span.error = span.error or "unfinished when the run ended"
            done.append(span)
        self._tasks.clear()
        run = self._open.pop(("run",), None)
        if run is not None:
            run.end_ns = max(_ns(env) if env else self._last_ns, run.start_ns)
            run.closer = env.sender if env else ""
            run.attributes["society.run.status"] = status
            if status not in ("succeeded",):
                run.error = status
            done.append(run)
        return done
