"""The replay model client: serves the answers recorded in a run log.

Each model call is in the log as a usage message carrying the request fingerprint and
the answer. `RecordedCalls` holds them by lane — the role and the task the call was made
for — shared by all of the role's instances (which instance takes a task is up to the
bus), so concurrent tasks each get their own answers in order. A request gets the unused
answer of its lane with the same fingerprint, or, when the request changed, the lane's
next unused answer (so a changed prompt still replays, and the difference shows up in the
compared messages). When a lane runs out where the recording shows the work was cancelled,
the call waits for that cancel and leaves no record (`CallNotMade`), as the original
never made it; otherwise it fails (`ReplayExhausted`): the re-run has diverged. With ``pace`` it waits each answer's recorded latency, so timing-dependent
behaviour (stall detection, parallel overlap) replays too. A ``fallback`` client takes
over when the recording is used up: that is how a fork continues live. A scripted
fallback is kept in step: every replayed request also consumes the scripted answer it
would have drawn, so the script continues where the recording stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any, Self

from autogen_core import Component, FunctionCall
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage, RequestUsage
from pydantic import BaseModel, ConfigDict

from bus.payloads import ToolRequest
from roles.errors import CallNotMade, ModelCallError
from roles.model_access import call_task, fingerprint
from society.models.offline import Content, OfflineClient
from society.models.scripted import ScriptedChatCompletionClient

__all__ = [
    "AnswerPool",
    "RecordedAnswer",
    "RecordedCalls",
    "ReplayChatCompletionClient",
    "ReplayConfig",
    "ReplayExhausted",
]


class ReplayExhausted(RuntimeError):
    """The log holds no more answers for this role."""


class RecordedAnswer(BaseModel):
    """One model answer as recorded."""

    model_config = ConfigDict(extra="forbid")

    fingerprint: str
    answer: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    error: str | None = None
    """The call failed with this reason: the replay fails the same way."""
    cancelled: bool = False
    """The call never answered (it was cancelled): the replay waits until cancelled too."""
    tool_calls: list[ToolRequest] = []
    """The model asked for these tools instead of answering in text."""


class AnswerPool:
    """The unused recorded answers of one role, shared by its instances."""

    def __init__(self, answers: Iterable[RecordedAnswer] = ()) -> None:
        self._left = list(answers)

    def __len__(self) -> int:
        return len(self._left)

    def take(self, fp: str, *, strict: bool = False) -> RecordedAnswer | None:
        """The first unused answer to this request, else (unless ``strict``) the next in
        order, else None."""
        chosen = next((a for a in self._left if a.fingerprint == fp), None)
        if chosen is None:
            if strict or not self._left:
                return None
            chosen = self._left[0]
        self._left.remove(chosen)
        return chosen

    def give_back(self, answer: RecordedAnswer) -> None:
        """Put back an answer a cancel kept from being given (first in line again)."""
        self._left.insert(0, answer)


Lane = tuple[str, str]
"""(role, task id or '')."""


class RecordedCalls:
    """A run's recorded answers by lane, and the lanes that ended in a cancel."""

    def __init__(
        self, answers: dict[Lane, list[RecordedAnswer]], holds: set[Lane] | None = None
    ) -> None:
        self.pools = {lane: AnswerPool(a) for lane, a in answers.items()}
        self.holds = holds or set()
        """Lanes whose recorded work was cancelled: running out there means waiting."""

    def pool(self, lane: Lane) -> AnswerPool:
        """The unused answers of ``lane``."""
        return self.pools.setdefault(lane, AnswerPool())


class ReplayConfig(BaseModel):
    """Config of `ReplayChatCompletionClient` (an AutoGen component config)."""

    model_config = ConfigDict(extra="forbid")

    answers: list[RecordedAnswer] = []
    model: str = "replay"
    name: str = ""
    pace: bool = True


class ReplayChatCompletionClient(OfflineClient, Component[ReplayConfig]):
    """Serves recorded answers by request fingerprint, then in order."""

    component_type = "model"
    component_config_schema = ReplayConfig
    component_provider_override = "society.models.replay.ReplayChatCompletionClient"

    def __init__(
        self,
        answers: Sequence[RecordedAnswer] = (),
        model: str = "replay",
        name: str = "",
        pace: bool = True,
        fallback: ChatCompletionClient | None = None,
        calls: RecordedCalls | None = None,
        in_step: bool = True,
    ) -> None:
        super().__init__(model)
        self._config = ReplayConfig(answers=list(answers), model=model, name=name, pace=pace)
        self._by_task = calls is not None
        self.calls = calls or RecordedCalls({(name, ""): list(answers)})
        self.fallback = fallback
        self.in_step = in_step
        """Keep a scripted fallback in step with the answers served (a fork); a resumed run's
        script was already moved past what the log served."""

    def _lane(self) -> Lane:
        return (self._config.name, (call_task.get() or "") if self._by_task else "")

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:
        """The recorded answer; in a fork, the fallback's for a request the log lacks."""
        fp = fingerprint(self.model, messages)
        lane = self._lane()
        if self.fallback is None:
            return self._result(*await self._serve(self.calls.pool(lane).take(fp), lane))
        chosen = self.calls.pool(lane).take(fp, strict=True)
        if chosen is None:
            return await self.fallback.create(messages, **kwargs)
        if self.in_step and isinstance(self.fallback, ScriptedChatCompletionClient):
            self.fallback.skip(messages)
        return self._result(*await self._serve(chosen, lane))

    async def answer(self, messages: Sequence[LLMMessage]) -> tuple[Content, RequestUsage]:
        """The recorded answer for this request."""
        lane = self._lane()
        return await self._serve(
            self.calls.pool(lane).take(fingerprint(self.model, messages)), lane
        )

    async def _serve(
        self, chosen: RecordedAnswer | None, lane: Lane
    ) -> tuple[Content, RequestUsage]:
        if chosen is None:
            if lane in self.calls.holds:
                try:
                    await asyncio.Event().wait()  # the recording was cancelled before this call
                except asyncio.CancelledError as exc:
                    raise CallNotMade from exc
            task = f" on task {lane[1]}" if lane[1] else ""
            msg = f"the log holds no more model answers for {lane[0]}{task}"
            raise ReplayExhausted(msg)
        if chosen.cancelled:
            await asyncio.Event().wait()  # as recorded: no answer until the caller cancels
        if self._config.pace and chosen.latency_s > 0:
            try:
                await asyncio.sleep(chosen.latency_s)  # the recorded timing
            except asyncio.CancelledError:
                # Cut off before answering: the recording gave this answer to a call that
                # was not cut off (here a cancel came sooner), so it is still to be given.
                self.calls.pool(lane).give_back(chosen)
                raise
        if chosen.error is not None:
            raise ModelCallError(chosen.error)
        usage = RequestUsage(prompt_tokens=chosen.tokens_in, completion_tokens=chosen.tokens_out)
        if chosen.tool_calls:
            calls = [
                FunctionCall(id=c.id, name=c.name, arguments=c.arguments) for c in chosen.tool_calls
            ]
            return calls, usage
        return chosen.answer, usage

    def _to_config(self) -> ReplayConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: ReplayConfig) -> Self:
        return cls(answers=config.answers, model=config.model, name=config.name, pace=config.pace)
