"""The critic role: reviews the run every N results or T seconds and publishes critiques.

Uses: the model (and budget guard) when its model review is on.

Its detectors fold each message in as it arrives, so a review costs what arrived since the
last one; a review due on a message is judged at that message (replays match).

A finding is published once: a critique must bring evidence that no earlier critique
showed, so one loop does not trigger replan after replan on the same messages.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque

from autogen_core.models import UserMessage
from pydantic import BaseModel, ConfigDict
from rapidfuzz import fuzz

from bus import Envelope, subjects
from bus.payloads import (
    Chat,
    Control,
    Critique,
    ExecResult,
    Final,
    Goal,
    PlanDecision,
    PlanRequest,
    TaskResult,
)
from roles.base import Role
from roles.context import RoleContext
from roles.critic.detectors import Detectors, Finding
from roles.errors import ModelAnswerError, TaskFailed
from roles.settings import CriticSettings

__all__ = ["Critic", "ReviewAnswer"]

RECENT = 40
"""Messages the model review reads."""

SAME_FINDING = 90.0
"""rapidfuzz token-set ratio at or above which two findings of a detector are the same."""

REVIEW_SYSTEM = """You are the critic of a team of AI agents. Judge the run so far against
the goal and its success criteria. Answer with one JSON object only:
{"goal_satisfied": bool, "progress": bool, "in_loop": bool, "plan_ok": bool,
 "summary": "...", "recommendation": "..."}"""


class ReviewAnswer(BaseModel):
    """The model-based review."""

    model_config = ConfigDict(extra="ignore")

    goal_satisfied: bool
    progress: bool
    in_loop: bool
    plan_ok: bool
    summary: str
    recommendation: str = ""


def _counts(env: Envelope) -> bool:
    """Messages that count towards a periodic review: results, failed runs, role-to-role chat."""
    p = env.payload
    if isinstance(p, TaskResult):
        return True
    if isinstance(p, ExecResult):
        return p.exit_code != 0 or p.timed_out
    return isinstance(p, Chat) and p.to is not None and p.by is None


class Critic(Role[CriticSettings]):
    """Watches everything of the run; names loops, stalls and drift with evidence."""

    name = "critic"
    hears_chat = False  # chat and control are history it judges, like everything else

    def __init__(self, ctx: RoleContext[CriticSettings]) -> None:
        super().__init__(ctx)
        self.recent: deque[Envelope] = deque(maxlen=RECENT)
        """The latest messages (for the model review)."""
        self.seen = 0
        self.detectors = Detectors(self.settings)
        self.goal = ""
        self.results_since_review = 0
        self.reported: set[str] = set()
        self.done = False
        self.revision = 0
        self.awaiting_plan = False
        self.paused = False
        """The run is paused (a person is deciding): no reviews until it resumes."""
        self._posted: list[tuple[str, int, str]] = []
        self._reviewing = asyncio.Lock()

    def subscriptions(self) -> list[tuple[str, str | None]]:
        """Every message of the run."""
        return [(subjects.run_wildcard(self.run_id), None)]

    async def start(self) -> None:
        """Start, and review on a timer too."""
        await super().start()
        self.spawn(self._timer(), name="critic-timer")

    async def handle(self, env: Envelope) -> None:
        """Record; review after every N results."""
        p = env.payload
        if isinstance(p, Final):
            self.done = True
            return
        if isinstance(p, Goal):
            self.goal = p.text
        if isinstance(p, Control) and p.action in ("pause", "resume"):
            self.paused = p.action == "pause"
        if p.type in ("presence", "usage") or self.done:
            return
        self.recent.append(env)
        self.seen += 1
        self.detectors.add(env)
        if isinstance(p, PlanRequest) and p.reason != "initial":
            self.awaiting_plan = True  # findings about the old plan no longer matter
        if isinstance(p, PlanDecision) and p.accepted:
            self.revision = p.revision
            self.awaiting_plan = False
            self._due(env)  # catch a wandering plan early
        elif _counts(env):
            self.results_since_review += 1
            if self.results_since_review >= self.settings.every_results:
                self._due(env)

    def _due(self, env: Envelope) -> None:
        """A review is due on ``env``: judge now, publish in the background."""
        self.results_since_review = 0
        self.spawn(self.review(env, self.detectors.findings()))

    async def _timer(self) -> None:
        while not self.done:
            await asyncio.sleep(self.settings.every_s)
            if self.seen and not self.done:
                await self.review(None)

    async def review(
        self, parent: Envelope | None, found: list[Finding] | None = None
    ) -> list[Critique]:
        """Publish what the detectors found (``found``: judged when the review was due;
        else now) that is new, with the model review if on."""
        if found is None:
            self.results_since_review = 0
            found = self.detectors.findings()
        async with self._reviewing:
            if self.awaiting_plan or self.paused:
                return []
            findings = [f for f in found if self._new(f)]
            if self.settings.model_review and self.deps.model is not None and not findings:
                review = await self._model_review(parent)
                if review is not None:
                    findings.append(review)
            critiques = []
            for f in findings:
                self.reported.update(f.evidence)
                if self.paused or self._said_before(f):
                    continue
                critique = Critique(
                    detector=f.detector,
                    verdict=f.verdict,  # type: ignore[arg-type]
                    summary=f.summary,
                    evidence=list(f.evidence),
                    recommendation=f.recommendation,
                    revision=self.revision,
                )
                await self.send(critique, parent=parent, task_id=None)
                critiques.append(critique)
            return critiques

    def _new(self, finding: Finding) -> bool:
        return any(e not in self.reported for e in finding.evidence)

    def _said_before(self, finding: Finding) -> bool:
        """The same finding about the same plan revision was posted already (a loop that
        goes on yields new evidence, not news); records it otherwise."""
        for detector, revision, summary in self._posted:
            same = detector == finding.detector and revision == self.revision
            if same and fuzz.token_set_ratio(summary, finding.summary) >= SAME_FINDING:
                return True
        self._posted.append((finding.detector, self.revision, finding.summary))
        return False

    async def _model_review(self, parent: Envelope | None) -> Finding | None:
        lines = []
        for env in self.recent:
            p = env.payload
            data = p.model_dump(exclude={"type"})
            lines.append(f"{env.sender} {p.type}: {json.dumps(data, ensure_ascii=False)[:300]}")
        prompt = f"Goal: {self.goal}\n\nRecent messages:\n" + "\n".join(lines)
        try:
            answer = await self.calls.structured(
                [self.system_prompt(REVIEW_SYSTEM), UserMessage(content=prompt, source="critic")],
                ReviewAnswer,
                what="review",
                parent=parent,
                task_id=None,
            )
        except (ModelAnswerError, TaskFailed) as exc:
            self.log.warning("model review failed", error=str(exc))
            return None
        if answer.in_loop or not answer.progress or not answer.plan_ok:
            verdict = "loop" if answer.in_loop else ("stall" if not answer.progress else "drift")
            evidence = tuple(e.id for e in list(self.recent)[-5:])
            return Finding("review", verdict, answer.summary, evidence, answer.recommendation)
        return None
