"""The replay model client: serves the answers recorded in a run log.

Each model call is in the log as a usage message carrying the request fingerprint and
the answer. A request gets the unused recorded answer with the same fingerprint, or,
when the request changed, the next unused answer in recorded order (so a changed prompt
still replays, and the difference shows up in the compared messages). With ``pace`` it
waits each answer's recorded latency, so timing-dependent behaviour (stall detection,
parallel overlap) replays too. A ``fallback`` client takes over when the recording is
used up: that is how a fork continues live.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Self

from autogen_core import Component
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage, RequestUsage
from pydantic import BaseModel, ConfigDict

from roles.model_access import fingerprint
from society.models.offline import OfflineClient

__all__ = ["RecordedAnswer", "ReplayChatCompletionClient", "ReplayConfig", "ReplayExhausted"]


class ReplayExhausted(RuntimeError):
    """The log holds no more answers for this role."""


class RecordedAnswer(BaseModel):
    """One model answer as recorded."""

    model_config = ConfigDict(extra="forbid")

    fingerprint: str
    answer: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0


class ReplayConfig(BaseModel):
    """Config of `ReplayChatCompletionClient`."""

    model_config = ConfigDict(extra="forbid")

    answers: list[RecordedAnswer] = []
    model: str = "replay"
    name: str = ""
    pace: bool = True


class ReplayChatCompletionClient(OfflineClient, Component[ReplayConfig]):
    """Answers from a recorded run."""

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
    ) -> None:
        super().__init__(model)
        self._config = ReplayConfig(answers=list(answers), model=model, name=name, pace=pace)
        self._left = list(answers)
        self.fallback = fallback

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:
        """The recorded answer, or the fallback's once the recording is used up."""
        if not self._left and self.fallback is not None:
            return await self.fallback.create(messages, **kwargs)
        return await super().create(messages, **kwargs)

    async def answer(self, messages: Sequence[LLMMessage]) -> tuple[str, RequestUsage]:
        """The recorded answer for this request."""
        fp = fingerprint(self.model, messages)
        chosen = next((a for a in self._left if a.fingerprint == fp), None)
        if chosen is None:
            if not self._left:
                msg = f"the log holds no more model answers for {self._config.name or 'this role'}"
                raise ReplayExhausted(msg)
            chosen = self._left[0]
        self._left.remove(chosen)
        if self._config.pace and chosen.latency_s > 0:
            await asyncio.sleep(chosen.latency_s)  # the recorded timing
        usage = RequestUsage(prompt_tokens=chosen.tokens_in, completion_tokens=chosen.tokens_out)
        return chosen.answer, usage

    def _to_config(self) -> ReplayConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: ReplayConfig) -> Self:
        return cls(answers=config.answers, model=config.model, name=config.name, pace=config.pace)
