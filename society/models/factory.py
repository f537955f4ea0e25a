"""Builds each role's model client from the scenario: AutoGen component configs, the
scripted and replay clients, environment-variable secrets, prices and rate limits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from autogen_core.models import ChatCompletionClient

from roles.model_access import ModelAccess
from society.errors import ModelConfigError
from society.models.env import expand_env
from society.models.prices import price_for
from society.models.ratelimit import Limiter, RateLimiter
from society.models.replay import RecordedCalls, ReplayChatCompletionClient
from society.models.retrying import RetryingClient
from society.models.spec import ROLE_LIMITS, ModelSpec, ScriptedAnswer

__all__ = ["ModelFactory", "override_spec"]


def override_spec(
    model: str,
    base_url: str | None,
    api_key_env: str | None,
    *,
    max_tokens: int | None = None,
    timeout_s: float | None = None,
    structured: str = "auto",
    slots: int | None = None,
) -> ModelSpec:
    """The spec ``--model`` gives every role: an OpenAI(-compatible) model. A server on
    this machine answers one call at a time unless ``slots`` says otherwise."""
    config: dict[str, Any] = {"model": model}
    if base_url:
        config["base_url"] = base_url
        config["model_info"] = {
            "vision": False,
            "function_calling": True,
            "json_output": True,
            "family": "unknown",
            "structured_output": True,
        }
        config["api_key"] = f"${{{api_key_env}}}" if api_key_env else "none"
    else:
        config["api_key"] = f"${{{api_key_env or 'OPENAI_API_KEY'}}}"
    return ModelSpec.model_validate(
        {
            "provider": "openai",
            "config": config,
            "max_tokens": max_tokens,
            "timeout_s": timeout_s,
            "structured": structured,
            "slots": slots if slots is not None or not _on_this_machine(base_url) else 1,
        }
    )


def _on_this_machine(base_url: str | None) -> bool:
    """Whether ``base_url`` is a server on this machine (loopback)."""
    if not base_url:
        return False
    host = urlsplit(base_url).hostname or ""
    return host == "localhost" or host.startswith("127.") or host == "::1"


def _limits(spec: ModelSpec, role: str) -> tuple[int, float]:
    tokens, timeout = ROLE_LIMITS.get(role, (1024, 150.0))
    return spec.max_tokens or tokens, spec.timeout_s or timeout


def _live_config(spec: ModelSpec, timeout_s: float) -> dict[str, Any]:
    """The client config: secrets expanded; the SDK's own retries off (ours are on the
    record) and its timeout ours."""
    config = dict(expand_env(spec.config))
    if spec.provider in ("openai", "azure"):
        config.setdefault("max_retries", 0)
        config.setdefault("timeout", timeout_s)
    return config


class ModelFactory:
    """Makes one client per role instance; rate limiters are shared per model spec."""

    def __init__(
        self,
        models: dict[str, ModelSpec],
        script: dict[str, list[ScriptedAnswer]],
        *,
        recorded: RecordedCalls | None = None,
        live_after_recorded: bool = False,
        pace: bool = True,
    ) -> None:
        self.models = models
        self.script = script
        self.recorded = recorded
        """Recorded answers: a re-run (or fork) serves these first."""
        self.live_after_recorded = live_after_recorded
        self.pace = pace
        self.in_step = True
        self._limiters: dict[str, RateLimiter] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}
        self.shared_limits: Callable[[str, bool], Limiter] | None = None
        """Where a worker process takes its rate-limit places: the run's limits host, by
        (model name, counts tokens) (None: this process's own limiters, which it hosts)."""

    def limiter(self, model_name: str) -> RateLimiter | None:
        """This process's rate limiter of a model: one per model, shared by its roles
        (None: the model has no rate limit)."""
        limits = self.models[model_name].rate_limit
        if limits is None or not (limits.rpm or limits.tpm):
            return None
        return self._limiters.setdefault(model_name, RateLimiter(limits.rpm, limits.tpm))

    def slots(self, model_name: str) -> asyncio.Semaphore | None:
        """This process's turns at a model's server: one semaphore per model, shared by its
        roles (None: the server takes any number of calls at once)."""
        slots = self.models[model_name].slots
        if slots is None:
            return None
        return self._slots.setdefault(model_name, asyncio.Semaphore(slots))

    def continue_from(
        self, recorded: RecordedCalls, script: dict[str, list[ScriptedAnswer]]
    ) -> None:
        """A resumed run: a call the stop cut off is answered as recorded (same request),
        every other call live; ``script`` is what the scripted answers have left."""
        self.recorded, self.live_after_recorded, self.pace = recorded, True, False
        self.script, self.in_step = script, False

    def build(self, model_name: str, role: str) -> ModelAccess:
        """The model access for ``role`` using the scenario's model ``model_name``."""
        spec = self.models[model_name]
        if self.recorded is None:
            return self._build_live(spec, model_name, role)
        # A re-run builds no live client (its secrets need not exist here); a fork does.
        live = self._build_live(spec, model_name, role) if self.live_after_recorded else None
        return self._access(
            spec,
            role,
            ReplayChatCompletionClient(
                model=spec.model_name(),
                name=role,
                pace=self.pace,
                fallback=live.client if live is not None else None,
                calls=self.recorded,
                in_step=self.in_step,
            ),
        )

    def check(self, roles: Iterable[tuple[str, str]]) -> None:
        """Build every (model, role) client the run will use, so a missing key or a
        broken config is reported before anything starts."""
        for model_name, role in roles:
            self._build_live(self.models[model_name], model_name, role)

    def _build_live(self, spec: ModelSpec, model_name: str, role: str) -> ModelAccess:
        provider = spec.provider_path()
        _, timeout_s = _limits(spec, role)
        offline = spec.provider in ("scripted", "replay")
        if spec.provider == "scripted":
            config: dict[str, Any] = {
                "answers": [a.model_dump() for a in self.script.get(role, [])],
                "model": str(spec.config.get("model", "scripted")),
                "name": role,
            }
        elif spec.provider == "replay":
            config = {"answers": [], "model": str(spec.config.get("model", "replay")), "name": role}
        else:
            config = _live_config(spec, timeout_s)
        try:
            client = ChatCompletionClient.load_component({"provider": provider, "config": config})
        except ModelConfigError:
            raise
        except Exception as exc:
            msg = f"cannot build model {model_name!r} ({provider}) for {role}: {exc}"
            raise ModelConfigError(msg) from exc
        limiter: Limiter | None = self.limiter(model_name)
        if limiter is not None and self.shared_limits is not None:
            limiter = self.shared_limits(model_name, limiter.counts_tokens)
        if limiter is not None or not offline:
            client = RetryingClient(
                client,
                limiter,
                slots=None if offline else self.slots(model_name),
                model=spec.model_name(),
                endpoint=spec.endpoint(),
                timeout_s=None if offline else timeout_s,
                tries=spec.tries,
            )
        return self._access(spec, role, client)

    @staticmethod
    def _access(spec: ModelSpec, role: str, client: ChatCompletionClient) -> ModelAccess:
        """The access a role gets: the same limits and structured mode whether the client
        is live or serves a recording (so a re-run's prompt records match the original)."""
        max_tokens, timeout_s = _limits(spec, role)
        offline = spec.provider in ("scripted", "replay")
        price = price_for(spec)
        extra: dict[str, Any] = {}
        if spec.provider in ("openai", "azure") and not any(
            k in spec.config for k in ("max_tokens", "max_completion_tokens")
        ):
            extra["max_tokens"] = max_tokens
        return ModelAccess(
            client=client,
            model=spec.model_name(),
            price_in=price.input if price else 0.0,
            price_out=price.output if price else 0.0,
            structured=spec.structured_mode(),
            max_tokens=None if offline else max_tokens,
            timeout_s=None if offline else timeout_s,
            endpoint="" if offline else spec.endpoint(),
            extra=extra,
        )
