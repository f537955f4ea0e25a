"""How a scenario names its models: an AutoGen component config plus price and rate limit."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = ["PROVIDER_ALIASES", "ModelSpec", "Price", "RateLimit", "ScriptedAnswer"]

PROVIDER_ALIASES: dict[str, str] = {
    "openai": "autogen_ext.models.openai.OpenAIChatCompletionClient",
    "azure": "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
    "ollama": "autogen_ext.models.ollama.OllamaChatCompletionClient",
    "anthropic": "autogen_ext.models.anthropic.AnthropicChatCompletionClient",
    "scripted": "society.models.scripted.ScriptedChatCompletionClient",
    "replay": "society.models.replay.ReplayChatCompletionClient",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Price(_Strict):
    """Price per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


class RateLimit(_Strict):
    """Provider limits this client must stay under (shared by every role of a process)."""

    rpm: float | None = Field(default=None, gt=0)
    """Requests per minute."""
    tpm: float | None = Field(default=None, gt=0)
    """Tokens per minute."""


class ModelSpec(_Strict):
    """One model client, declared as an AutoGen component config.

    ``provider`` is an AutoGen provider path (any ``ChatCompletionClient`` works) or one
    of the aliases openai, azure, ollama, anthropic, scripted, replay; ``config`` is that
    client's config (for OpenAI-compatible servers: ``model``, ``base_url``, ``api_key``,
    ``model_info``). ``api_key`` may be written ``${ENV_VAR}``.
    """

    provider: str = "scripted"
    config: dict[str, Any] = {}
    price: Price | None = None
    """Overrides the shipped price table for this model."""
    rate_limit: RateLimit | None = None

    def provider_path(self) -> str:
        """The full provider import path."""
        return PROVIDER_ALIASES.get(self.provider, self.provider)

    def model_name(self) -> str:
        """The model's name, for logs and price lookup."""
        name = self.config.get("model")
        return str(name) if name else self.provider


class ScriptedAnswer(_Strict):
    """One scripted model answer: served in order, or when ``match`` is found in the prompt."""

    answer: JsonValue
    """The text to answer (a mapping or list is sent as JSON)."""
    match: str | None = None
    """Regular expression searched in the last user message; unmatched answers go in order."""
    tokens_in: int | None = Field(default=None, ge=0)
    """Reported prompt tokens (default: estimated from the text)."""
    tokens_out: int | None = Field(default=None, ge=0)
    """Reported completion tokens (default: estimated from the text)."""
    delay_s: float = Field(default=0.0, ge=0, le=600)
    """Simulated latency."""
