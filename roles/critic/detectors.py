"""Deterministic detectors over a run's message history. Each returns findings with the
ids of the messages that show the problem; thresholds come from `CriticSettings`.

Each detector keeps its evidence as messages arrive (``add``), so a review costs what
arrived since the last one, not the whole history; `Detectors` runs them all with the
loop detectors' window reset at each accepted plan. The ``detect_*`` functions run one
over a whole history (tests, replays)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from bus import Envelope
from bus.payloads import Goal, Plan, PlanDecision, TaskAssignment, TaskResult
from roles.critic.evidence import Detector, Finding, error_signature, words
from roles.critic.loops import PingPong, Redo, Repeats, SameError
from roles.settings import CriticSettings

__all__ = [
    "Detector",
    "Detectors",
    "Finding",
    "detect_all",
    "detect_drift",
    "detect_ping_pong",
    "detect_redo",
    "detect_repeats",
    "detect_same_error",
    "detect_stall",
    "error_signature",
    "words",
]


class Stall:
    """No task completed and no new output for a while."""

    def __init__(self, s: CriticSettings) -> None:
        self.s = s
        self.last_progress: float | None = None
        self.last_ids: tuple[str, ...] = ()
        self.now: float | None = None
        """The time to judge at (None: the clock's)."""

    def add(self, env: Envelope) -> None:
        p = env.payload
        first = self.last_progress is None
        if first or isinstance(p, Plan) or (isinstance(p, TaskResult) and p.status == "done"):
            self.last_progress = env.ts / 1e6
            self.last_ids = (env.id,)

    def findings(self) -> list[Finding]:
        if self.last_progress is None:
            return []
        idle = (time.time() if self.now is None else self.now) - self.last_progress
        if idle < self.s.stall_s:
            return []
        return [
            Finding(
                "stall",
                "stall",
                f"no task completed and no new output for {idle:.0f}s",
                self.last_ids,
                "replan with smaller tasks or ask the human",
            )
        ]


class Drift:
    """Tasks of the latest plan that feed nothing towards the answer and whose words
    barely overlap with the goal's (judged once per plan; assignments add evidence)."""

    def __init__(self, s: CriticSettings, goal: str = "") -> None:
        self.s = s
        self.goal_words = words(goal)
        self.plan: Envelope | None = None
        self.drifting: list[str] = []
        self.drifting_ids: set[str] = set()
        self.evidence: list[str] = []

    def add(self, env: Envelope) -> None:
        p = env.payload
        if isinstance(p, Goal):
            self.goal_words = words(p.text)
        elif isinstance(p, Plan) and p.tasks:
            self.plan = env
            self.drifting = self._drifting(p) if self.goal_words else []
            self.drifting_ids = set(self.drifting)
            self.evidence = [env.id]
        elif (
            isinstance(p, TaskAssignment)
            and p.task.id in self.drifting_ids
            and self.plan is not None
            and env.ts >= self.plan.ts
        ):
            self.evidence.append(env.id)

    def _drifting(self, plan: Plan) -> list[str]:
        consumed = {name for t in plan.tasks for name in t.inputs} | {"answer"}
        if not any("answer" in t.outputs for t in plan.tasks):
            # no task names the answer: the plan's last tasks give it (their outputs are
            # the final answer), so they feed it whatever their words
            depended = {d for t in plan.tasks for d in t.depends_on}
            consumed |= {o for t in plan.tasks if t.id not in depended for o in t.outputs}
        waited_for = {d for t in plan.tasks for d in t.depends_on}
        drifting = []
        for task in plan.tasks:
            if consumed.intersection(task.outputs) or task.id in waited_for:
                # it feeds the answer path (a task waits for it, and the manager gives that
                # task its outputs): not a wanderer, whatever its words
                continue
            task_words = words(task.description)
            union = task_words | self.goal_words
            if (
                task_words
                and len(task_words & self.goal_words) / len(union) < self.s.drift_threshold
            ):
                drifting.append(task.id)
        return drifting

    def findings(self) -> list[Finding]:
        if not self.drifting or self.plan is None:
            return []
        assert isinstance(self.plan.payload, Plan)
        names = ", ".join(self.drifting)
        return [
            Finding(
                "drift",
                "drift",
                f"tasks {names} of plan revision {self.plan.payload.revision} have little to do with the goal",
                tuple(self.evidence),
                f"drop {names} and plan only work that serves the goal",
            )
        ]


class Detectors:
    """Every detector, fed as messages arrive; loop detectors (repeats, same error, ping
    pong) look only at the current plan revision: they start afresh at an accepted plan."""

    def __init__(self, s: CriticSettings, goal: str = "") -> None:
        self.s = s
        self.redo = Redo(s)
        self.drift = Drift(s, goal)
        self.stall = Stall(s)
        self._window()

    def _window(self) -> None:
        self.same_error = SameError(self.s)
        self.repeats = Repeats(self.s)
        self.ping_pong = PingPong(self.s)

    def add(self, env: Envelope) -> None:
        """Fold in one message (in the order the run saw them)."""
        p = env.payload
        if isinstance(p, PlanDecision) and p.accepted:
            self._window()
        for detector in self._all():
            detector.add(env)

    def _all(self) -> Iterable[Detector]:
        return (self.same_error, self.repeats, self.ping_pong, self.redo, self.drift, self.stall)

    def findings(self, now: float | None = None) -> list[Finding]:
        """What every detector sees now, in a fixed order."""
        self.stall.now = now
        return [f for detector in self._all() for f in detector.findings()]


def _run(detector: Detector, history: Iterable[Envelope]) -> list[Finding]:
    for env in history:
        detector.add(env)
    return detector.findings()


def detect_repeats(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """`Repeats` over a whole history."""
    return _run(Repeats(s), history)


def detect_same_error(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """`SameError` over a whole history."""
    return _run(SameError(s), history)


def detect_ping_pong(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """`PingPong` over a whole history."""
    return _run(PingPong(s), history)


def detect_stall(
    history: Sequence[Envelope], s: CriticSettings, now: float | None = None
) -> list[Finding]:
    """`Stall` over a whole history, judged at ``now``."""
    stall = Stall(s)
    stall.now = now
    return _run(stall, history)


def detect_drift(history: Sequence[Envelope], goal: str, s: CriticSettings) -> list[Finding]:
    """`Drift` over a whole history."""
    return _run(Drift(s, goal), history)


def detect_redo(history: Sequence[Envelope], s: CriticSettings) -> list[Finding]:
    """`Redo` over a whole history."""
    return _run(Redo(s), history)


def detect_all(
    history: Sequence[Envelope], goal: str, s: CriticSettings, now: float | None = None
) -> list[Finding]:
    """Every detector over a whole history, in a fixed order."""
    detectors = Detectors(s, goal)
    for env in history:
        detectors.add(env)
    return detectors.findings(now)
