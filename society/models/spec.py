"""How a scenario names its models: an AutoGen component config plus price and rate limit."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from roles.settings import StructuredMode

__all__ = [
    "PROMPT_S",
    "PROVIDER_ALIASES",
    "ROLE_LIMITS",
    "SLOWEST_TOKENS_PER_S",
    "ModelSpec",
    "Price",
    "RateLimit",
    "ScriptedAnswer",
    "ScriptedToolCall",
]

SLOWEST_TOKENS_PER_S = 11.0
"""The slowest generation a supported server runs at (llama.cpp on 2 threads, 1.5B: 11-21)."""
PROMPT_S = 30.0
"""What a default timeout allows for reading the prompt before the answer starts."""

ROLE_LIMITS: dict[str, tuple[int, float]] = {
    "planner": (2048, 240.0),
    "coder": (2048, 240.0),
    "researcher": (1024, 150.0),
    "critic": (768, 120.0),
    "reflector": (512, 90.0),
    "manager": (512, 90.0),
    "direct": (2048, 240.0),
    "program": (2048, 240.0),
    "loop": (2048, 240.0),
}
"""Each role's default ``max_tokens`` and per-call timeout (s) when the model sets none. A
timeout holds its ``max_tokens`` at `SLOWEST_TOKENS_PER_S` after `PROMPT_S`: an answer that
runs on to ``max_tokens`` (a small model repeating itself) comes back cut at ``max_tokens``,
to be shown the model as a failure, instead of timing out; a timed-out call is retried and at
temperature 0 runs on again the same way, which spent a live HumanEval case's whole wall
(420 s) on one 2,047-token answer of 13 tokens/s against a 120 s timeout."""

PROVIDER_ALIASES: dict[str, str] = {
    "openai": "autogen_ext.models.openai.OpenAIChatCompletionClient",
    "azure": "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
    "ollama": "autogen_ext.models.ollama.OllamaChatCompletionClient",
    "anthropic": "autogen_ext.models.anthropic.AnthropicChatCompletionClient",
    "scripted": "society.models.scripted.ScriptedChatCompletionClient",
    "replay": "society.models.replay.ReplayChatCompletionClient",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


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
    structured: Literal["auto"] | StructuredMode = "auto"
    """How the server takes a schema: ``json_schema`` (OpenAI, Azure), ``json_object``
    (llama.cpp, llama-cpp-python: a schema beside ``json_object``), ``ollama`` (``format``),
    ``vllm`` (``guided_json``), ``prompt`` (none: schema in the prompt, answer parsed) or
    ``auto``: OpenAI's own API and Azure json_schema, another ``base_url`` json_object,
    Ollama ollama, anything else prompt."""
    max_tokens: int | None = Field(default=None, ge=16, le=1_000_000)
    """Longest answer (default: per role, 512 to 2,048)."""
    timeout_s: float | None = Field(default=None, gt=0, le=3600)
    """Longest one attempt of a call may take (default: per role, 60 to 120 s)."""
    tries: int = Field(default=4, ge=1, le=10)
    """Attempts of a call on transport errors, 5xx, 429 and garbled answers."""
    slots: int | None = Field(default=None, ge=1, le=1024)
    """Calls the server answers at once (None: no limit). More wait their turn in this
    process, and a call's timeout starts when it is sent: a server with one slot
    (llama.cpp's default here) otherwise queues them while their timeouts run, the
    client gives up and retries, and the server still computes every abandoned call."""

    def structured_mode(self) -> StructuredMode:
        """``structured`` with ``auto`` resolved for this provider."""
        if self.structured != "auto":
            return self.structured
        match self.provider:
            case "openai":
                return "json_object" if self.config.get("base_url") else "json_schema"
            case "azure":
                return "json_schema"
            case "ollama":
                return "ollama"
            case _:
                return "prompt"

    def endpoint(self) -> str:
        """Where this model is served, for messages."""
        for key in ("base_url", "azure_endpoint", "host"):
            if self.config.get(key):
                return str(self.config[key]).rstrip("/")
        defaults = {"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}
        return defaults.get(self.provider, self.provider)

    def provider_path(self) -> str:
        """The full provider import path."""
        return PROVIDER_ALIASES.get(self.provider, self.provider)

    def model_name(self) -> str:
        """The model's name, for logs and price lookup."""
        name = self.config.get("model")
        return str(name) if name else self.provider


class ScriptedToolCall(_Strict):
    """A tool call a scripted answer makes."""

    name: str
    arguments: dict[str, JsonValue] = {}
    """Arguments; ``${VAR}`` in strings is replaced from the environment when served."""


class ScriptedAnswer(_Strict):
    """One scripted model answer: served in order, or when ``match`` is found in the prompt."""

    answer: JsonValue = ""
    """The text to answer (a mapping or list is sent as JSON)."""
    tool_calls: list[ScriptedToolCall] = []
    """Answer with these tool calls instead of text."""
    match: str | None = None
    """Regular expression searched in the last user message; unmatched answers go in order."""
    instructions: str | None = None
    """Regular expression searched in the system message (the role's instructions): the
    answer fits only a request whose instructions have it (and ``match``, when given)."""
    tokens_in: int | None = Field(default=None, ge=0)
    """Reported prompt tokens (default: estimated from the text)."""
    tokens_out: int | None = Field(default=None, ge=0)
    """Reported completion tokens (default: estimated from the text)."""
    delay_s: float = Field(default=0.0, ge=0, le=600)
    """Simulated latency."""
