"""The scripted model client: answers written in the scenario, for examples and tests.

Answers are served per role: an answer with ``match`` is used when its regular
expression is found in the last user message; otherwise the next answer without
``match`` is used, in order. When no answer fits, the call fails with a message that
says which role ran out and what it was asked — a test never calls a real model.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Self

from autogen_core import Component, FunctionCall
from autogen_core.models import LLMMessage, RequestUsage
from pydantic import BaseModel, ConfigDict

from society.models.env import expand_env
from society.models.offline import (
    Content,
    OfflineClient,
    estimate_tokens,
    last_user_text,
    system_text,
)
from society.models.spec import ScriptedAnswer

__all__ = ["ScriptExhausted", "ScriptedChatCompletionClient", "ScriptedConfig"]


class ScriptExhausted(RuntimeError):
    """No scripted answer is left for a request."""


class ScriptedConfig(BaseModel):
    """Config of `ScriptedChatCompletionClient` (an AutoGen component config)."""

    model_config = ConfigDict(extra="forbid")

    answers: list[ScriptedAnswer] = []
    model: str = "scripted"
    name: str = ""
    """Whose answers these are (for error messages)."""


class ScriptedChatCompletionClient(OfflineClient, Component[ScriptedConfig]):
    """Serves scripted answers in order or by pattern."""

    component_type = "model"
    component_config_schema = ScriptedConfig
    component_provider_override = "society.models.scripted.ScriptedChatCompletionClient"

    def __init__(
        self, answers: Sequence[ScriptedAnswer] = (), model: str = "scripted", name: str = ""
    ) -> None:
        super().__init__(model)
        self._config = ScriptedConfig(answers=list(answers), model=model, name=name)
        self._left = list(answers)
        self._patterns = {id(a): re.compile(a.match, re.S) for a in answers if a.match}
        self._system = {
            id(a): re.compile(a.instructions, re.S) for a in answers if a.instructions is not None
        }
        self.calls = 0

    def _pick(self, prompt: str, system: str = "") -> ScriptedAnswer:
        def fits(a: ScriptedAnswer) -> bool:
            return a.instructions is None or self._system[id(a)].search(system) is not None

        for i, a in enumerate(self._left):
            if a.match and self._patterns[id(a)].search(prompt) and fits(a):
                return self._left.pop(i)
        for i, a in enumerate(self._left):
            if not a.match and fits(a):
                return self._left.pop(i)
        who = self._config.name or "this role"
        msg = (
            f"the scripted answers for {who} ran out at call {self.calls} "
            f"({len(self._left)} pattern answers left, none matching); "
            f"the prompt ended: {prompt[-300:]!r}"
        )
        raise ScriptExhausted(msg)

    def skip(self, messages: Sequence[LLMMessage]) -> bool:
        """Consume the answer this request would get, without answering (keeps a script in
        step with a replayed recording); False when none fits."""
        try:
            self._pick(last_user_text(messages), system_text(messages))
        except ScriptExhausted:
            return False
        self.calls += 1
        return True

    async def answer(self, messages: Sequence[LLMMessage]) -> tuple[Content, RequestUsage]:
        """The next fitting scripted answer."""
        self.calls += 1
        prompt = last_user_text(messages)
        chosen = self._pick(prompt, system_text(messages))
        if chosen.delay_s:
            await asyncio.sleep(chosen.delay_s)  # simulated model latency
        if chosen.tool_calls:
            calls = [
                FunctionCall(
                    id=f"call_{self.calls}_{i}",
                    name=c.name,
                    arguments=json.dumps(expand_env(c.arguments)),
                )
                for i, c in enumerate(chosen.tool_calls)
            ]
            size = estimate_tokens(json.dumps([c.model_dump() for c in chosen.tool_calls]))
            usage = RequestUsage(prompt_tokens=self.count_tokens(messages), completion_tokens=size)
            return calls, usage
        text = chosen.answer if isinstance(chosen.answer, str) else json.dumps(chosen.answer)
        tokens_in = (
            chosen.tokens_in if chosen.tokens_in is not None else self.count_tokens(messages)
        )
        tokens_out = chosen.tokens_out if chosen.tokens_out is not None else estimate_tokens(text)
        return text, RequestUsage(prompt_tokens=tokens_in, completion_tokens=tokens_out)

    @property
    def remaining(self) -> int:
        """Answers not yet served."""
        return len(self._left)

    def _to_config(self) -> ScriptedConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: ScriptedConfig) -> Self:
        return cls(answers=config.answers, model=config.model, name=config.name)
