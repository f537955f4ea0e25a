"""Builds each role's model client from the scenario: AutoGen component configs, the
scripted and replay clients, environment-variable secrets, prices and rate limits."""

from __future__ import annotations

import os
import re
from typing import Any

from autogen_core.models import ChatCompletionClient

from roles.model_access import ModelAccess
from society.errors import ModelConfigError
from society.models.prices import price_for
from society.models.ratelimit import RateLimitedClient, RateLimiter
from society.models.replay import RecordedCalls, ReplayChatCompletionClient
from society.models.spec import ModelSpec, ScriptedAnswer

__all__ = ["ModelFactory", "expand_env", "override_spec"]

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env(value: Any) -> Any:
    """Replace ``${VAR}`` in strings (recursively) with environment values."""
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in os.environ:
                msg = f"environment variable {name} is not set (referenced as ${{{name}}})"
                raise ModelConfigError(msg)
            return os.environ[name]

        return _ENV.sub(sub, value)
    if isinstance(value, dict):
        return {k: expand_env(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v) for v in value]
    return value


def override_spec(model: str, base_url: str | None, api_key_env: str | None) -> ModelSpec:
    """The spec ``--model`` gives every role: an OpenAI(-compatible) model."""
    config: dict[str, Any] = {"model": model}
    if base_url:
        config["base_url"] = base_url
        config["model_info"] = {
            "vision": False,
            "function_calling": False,
            "json_output": True,
            "family": "unknown",
            "structured_output": False,
        }
    config["api_key"] = (
        f"${{{api_key_env}}}" if api_key_env else os.environ.get("OPENAI_API_KEY", "none")
    )
    return ModelSpec(provider="openai", config=config)


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
        self._limiters: dict[str, RateLimiter] = {}

    def build(self, model_name: str, role: str) -> ModelAccess:
        """The model access for ``role`` using the scenario's model ``model_name``."""
        spec = self.models[model_name]
        if self.recorded is None:
            return self._build_live(spec, model_name, role)
        # A re-run builds no live client (its secrets need not exist here); a fork does.
        live = self._build_live(spec, model_name, role) if self.live_after_recorded else None
        price = price_for(spec)
        return ModelAccess(
            client=ReplayChatCompletionClient(
                model=spec.model_name(),
                name=role,
                pace=self.pace,
                fallback=live.client if live is not None else None,
                calls=self.recorded,
            ),
            model=spec.model_name(),
            price_in=price.input if price else 0.0,
            price_out=price.output if price else 0.0,
        )

    def _build_live(self, spec: ModelSpec, model_name: str, role: str) -> ModelAccess:
        provider = spec.provider_path()
        if spec.provider == "scripted":
            config: dict[str, Any] = {
                "answers": [a.model_dump() for a in self.script.get(role, [])],
                "model": str(spec.config.get("model", "scripted")),
                "name": role,
            }
        elif spec.provider == "replay":
            config = {"answers": [], "model": str(spec.config.get("model", "replay")), "name": role}
        else:
            config = expand_env(spec.config)
        try:
            client = ChatCompletionClient.load_component({"provider": provider, "config": config})
        except ModelConfigError:
            raise
        except Exception as exc:
            msg = f"cannot build model {model_name!r} ({provider}) for {role}: {exc}"
            raise ModelConfigError(msg) from exc
        limits = spec.rate_limit
        limiter = None
        if limits is not None and (limits.rpm or limits.tpm):
            limiter = self._limiters.setdefault(model_name, RateLimiter(limits.rpm, limits.tpm))
        if limiter is not None or spec.provider not in ("scripted", "replay"):
            client = RateLimitedClient(client, limiter)
        price = price_for(spec)
        return ModelAccess(
            client=client,
            model=spec.model_name(),
            price_in=price.input if price else 0.0,
            price_out=price.output if price else 0.0,
        )
