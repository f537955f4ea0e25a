"""Loop detectors: repeated messages, the same error again, two roles chatting back and
forth, and a task planned again after it was done. Each keeps its evidence as messages
arrive (`roles.critic.detectors`)."""

from __future__ import annotations

from collections import defaultdict, deque

from rapidfuzz import fuzz, process

from bus import Envelope
from bus.payloads import Chat, ExecRequest, ExecResult, Plan, TaskAssignment, TaskResult
from roles.critic.evidence import Finding, content, error_signature, role_chat
from roles.settings import CriticSettings

__all__ = ["Attempts", "PingPong", "Redo", "Repeats", "SameError"]


class Attempts:
    """Which assignment of its task a message belongs to: a worker's own bounded fix
    attempts within one assignment (the coder's programs) are its work, not a loop; the
    same thing again in the next assignment of the task, or in another task, is."""

    def __init__(self) -> None:
        self.assigned: dict[str, int] = defaultdict(int)
        self.counted: set[tuple[str, str, int]] = set()

    def add(self, env: Envelope) -> None:
        if isinstance(env.payload, TaskAssignment):
            self.assigned[env.payload.task.id] += 1

    def first(self, what: str, env: Envelope) -> bool:
        """Whether ``what`` is new for this assignment (outside any task: always)."""
        if env.task_id is None:
            return True
        key = (what, env.task_id, self.assigned[env.task_id])
        if key in self.counted:
            return False
        self.counted.add(key)
        return True


class Repeats:
    """The same or nearly the same message repeated by one role (a program run again
    within one assignment of its task counts once)."""

    def __init__(self, s: CriticSettings, attempts: Attempts | None = None) -> None:
        self.s = s
        self.by_role: dict[str, deque[tuple[str, str]]] = {}
        self.attempts = attempts or Attempts()

    def add(self, env: Envelope) -> None:
        self.attempts.add(env)
        text = content(env)
        if isinstance(env.payload, ExecRequest) and not self.attempts.first("exec", env):
            return
        if text:
            key = f"{env.role}:{env.payload.type}"
            recent = self.by_role.setdefault(key, deque(maxlen=self.s.repeat_threshold * 3))
            recent.append((env.id, text))

    def findings(self) -> list[Finding]:
        findings = []
        for key, recent in self.by_role.items():
            last = recent[-1][1]
            similar = [mid for mid, text in recent if fuzz.ratio(text, last) >= self.s.similarity]
            if len(similar) >= self.s.repeat_threshold:
                role, kind = key.split(":")
                findings.append(
                    Finding(
                        "repeat",
                        "loop",
                        f"{role} sent {len(similar)} near-identical {kind} messages",
                        tuple(similar),
                        f"change the approach of the {role}; do not repeat the same {kind}",
                    )
                )
        return findings


class SameError:
    """The same error signature from the sandbox again and again: the coder's own fix
    attempts (other programs failing alike within one assignment of a task) count once,
    the very same program failing again counts each time."""

    def __init__(self, s: CriticSettings, attempts: Attempts | None = None) -> None:
        self.s = s
        self.by_sig: dict[str, list[str]] = defaultdict(list)
        self.attempts = attempts or Attempts()
        self.programs: dict[str, str] = {}
        """The program of each execution request, by message id."""
        self.failed: set[tuple[str, str]] = set()
        """(error signature, program) pairs seen."""

    def add(self, env: Envelope) -> None:
        self.attempts.add(env)
        p = env.payload
        if isinstance(p, ExecRequest):
            self.programs[env.id] = p.code
        elif isinstance(p, ExecResult) and (p.exit_code not in (0, None) or p.timed_out):
            sig = "timeout" if p.timed_out else error_signature(p.stderr)
            program = self.programs.pop(env.parent_id or "", "")
            again = (sig, program) in self.failed  # the very program again: no fix tried
            self.failed.add((sig, program))
            if self.attempts.first(f"error:{sig}", env) or again:
                self.by_sig[sig].append(env.id)

    def findings(self) -> list[Finding]:
        return [
            Finding(
                "same_error",
                "loop",
                f"the same error came back {len(ids)} times: {sig}",
                tuple(ids),
                "split the task or change how it is solved; the fix attempts are not working",
            )
            for sig, ids in self.by_sig.items()
            if len(ids) >= self.s.same_error_threshold
        ]


class PingPong:
    """Two roles sending chat back and forth with no task completed in between."""

    def __init__(self, s: CriticSettings) -> None:
        self.s = s
        self.chain: list[tuple[Envelope, str]] = []

    def add(self, env: Envelope) -> None:
        p = env.payload
        if isinstance(p, TaskResult) and p.status == "done":
            self.chain = []
        elif isinstance(p, Chat) and p.to and role_chat(env):
            if self.chain and {self.chain[-1][0].role, self.chain[-1][1]} != {env.role, p.to}:
                self.chain = []
            self.chain.append((env, p.to))

    def findings(self) -> list[Finding]:
        if len(self.chain) < self.s.ping_pong_threshold:
            return []
        a, b = self.chain[0][0].role, self.chain[0][1]
        return [
            Finding(
                "ping_pong",
                "loop",
                f"{a} and {b} exchanged {len(self.chain)} messages without completing a task",
                tuple(e.id for e, _ in self.chain),
                f"stop the exchange between {a} and {b}; give one of them a concrete task",
            )
        ]


class Redo:
    """A task planned again after an equal task was already done (judged as plans arrive):
    described alike, and producing nothing the done one did not (a task planned again to
    give the answer a plan lacked is not a redo)."""

    def __init__(self, s: CriticSettings) -> None:
        self.s = s
        self.assigned: dict[str, tuple[str, frozenset[str]]] = {}
        self.done: dict[str, tuple[str, str, frozenset[str]]] = {}
        self.found: list[Finding] = []

    def add(self, env: Envelope) -> None:
        p = env.payload
        if isinstance(p, TaskAssignment):
            self.assigned[p.task.id] = (p.task.description, frozenset(p.task.outputs))
        elif isinstance(p, TaskResult) and p.status == "done" and p.task_id in self.assigned:
            self.done[p.task_id] = (env.id, *self.assigned[p.task_id])
        elif isinstance(p, Plan) and p.revision >= 2 and self.done:
            for task in p.tasks:
                done = [(t, d) for t, d in self.done.items() if set(task.outputs) <= d[2]]
                descriptions = [desc for _, (_, desc, _) in done]
                matches = process.extract(
                    task.description,
                    descriptions,
                    scorer=fuzz.token_sort_ratio,
                    score_cutoff=self.s.similarity,
                    limit=None,
                )
                for _, _, i in sorted(matches, key=lambda m: m[2]):
                    tid, (rid, _, _) = done[i]
                    self.found.append(
                        Finding(
                            "redo",
                            "loop",
                            f"plan revision {p.revision} plans {task.id!r} again, but {tid!r} already did it",
                            (rid, env.id),
                            f"keep the output of {tid} instead of redoing it",
                        )
                    )

    def findings(self) -> list[Finding]:
        return list(self.found)
