"""The model options, written once: ``--model`` and what goes with it (server, API key,
answer length, timeout, the server's slots, schema mode, temperature). A command that runs
models takes a ``models: ModelOptions`` parameter and is decorated with `model_options`,
which puts the options into its signature for typer and hands the command one value."""

# No `from __future__ import annotations`: typer reads the annotations (see society.cli).
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from society.cli.support import EXIT_BAD_INPUT, fail

if TYPE_CHECKING:
    from society.models.spec import ModelSpec

__all__ = ["STRUCTURED_MODES", "ModelOptions", "model_options"]

R = TypeVar("R")

STRUCTURED_MODES = ("auto", "json_schema", "json_object", "ollama", "vllm", "prompt")

Model = Annotated[
    str | None, typer.Option("--model", help="Use this OpenAI(-compatible) model for every role")
]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL for --model")]
ApiKeyEnv = Annotated[
    str | None, typer.Option(help="Environment variable holding the API key for --model")
]
MaxTokens = Annotated[
    int | None,
    typer.Option(min=16, help="Longest answer of --model (default: per role, 512-2048)"),
]
Timeout = Annotated[
    float | None,
    typer.Option(min=0.1, help="Seconds one call of --model may take (default: per role, 90-240)"),
]
Slots = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Calls --model's server answers at once; more wait their turn before their "
        "timeout starts (default: 1 for a server on this machine, else no limit)",
    ),
]
Structured = Annotated[
    str,
    typer.Option(
        help="How --model's server takes a schema: auto, json_schema (OpenAI), json_object "
        "(llama.cpp), ollama, vllm, prompt"
    ),
]


def _temperature(default: float | None) -> Any:
    said = " (default: the server's)" if default is None else ""
    help_text = f"--model's sampling temperature{said}"
    return Annotated[float | None, typer.Option(min=0.0, max=2.0, help=help_text)]


@dataclass(frozen=True)
class ModelOptions:
    """What a command was told about the model; without ``model`` the scenario's or suite's
    models are used."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    structured: str = "auto"
    temperature: float | None = None
    slots: int | None = None

    def spec(self) -> "ModelSpec | None":
        """The spec ``--model`` gives every role, or None without it (exit 2 on a wrong
        ``--structured``)."""
        return self.spec_of(self.model, self.base_url) if self.model else None

    def spec_of(self, model: str, base_url: str | None) -> "ModelSpec":
        """The spec of ``model`` at ``base_url`` with these options (another model than
        ``--model`` with the same settings, e.g. training's reflection model)."""
        from society.models.factory import override_spec

        if self.structured not in STRUCTURED_MODES:
            text = f"--structured must be one of {', '.join(STRUCTURED_MODES)}, not "
            raise fail(text + repr(self.structured), EXIT_BAD_INPUT)
        spec = override_spec(
            model,
            base_url,
            self.api_key_env,
            max_tokens=self.max_tokens,
            timeout_s=self.timeout,
            structured=self.structured,
            slots=self.slots,
        )
        if self.temperature is None:
            return spec
        return spec.model_copy(update={"config": {**spec.config, "temperature": self.temperature}})


_OPTIONS: dict[str, tuple[Any, Any]] = {
    # the parameter, its annotation and its default (the temperature's is the command's)
    "model": (Model, None),
    "base_url": (BaseUrl, None),
    "api_key_env": (ApiKeyEnv, None),
    "max_tokens": (MaxTokens, None),
    "timeout": (Timeout, None),
    "slots": (Slots, None),
    "structured": (Structured, "auto"),
}


def model_options(
    *, temperature: float | None = None
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Give a command with a ``models: ModelOptions`` parameter the model options (the
    temperature's default is the command's: None leaves it to the server)."""

    def decorate(command: Callable[..., R]) -> Callable[..., R]:
        signature = inspect.signature(command)
        kept = [p for p in signature.parameters.values() if p.name != "models"]
        options = {**_OPTIONS, "temperature": (_temperature(temperature), temperature)}
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=value)
            for name, (hint, value) in options.items()
        ]

        @functools.wraps(command)
        def with_models(*args: Any, **kwargs: Any) -> R:
            given = {p.name: kwargs.pop(p.name, p.default) for p in added}
            return command(*args, models=ModelOptions(**given), **kwargs)

        params = [*kept, *added]
        with_models.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        with_models.__annotations__ = {
            **{p.name: p.annotation for p in params},
            "return": signature.return_annotation,
        }
        return with_models

    return decorate
