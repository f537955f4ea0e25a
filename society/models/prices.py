"""The shipped price table (USD per million tokens); a scenario's ``price`` overrides it."""

from __future__ import annotations

from society.models.spec import ModelSpec, Price

__all__ = ["PRICES", "price_for"]

PRICES: dict[str, Price] = {
    "gpt-4o": Price(input=2.50, output=10.00),
    "gpt-4o-mini": Price(input=0.15, output=0.60),
    "gpt-4.1": Price(input=2.00, output=8.00),
    "gpt-4.1-mini": Price(input=0.40, output=1.60),
    "gpt-4.1-nano": Price(input=0.10, output=0.40),
    "o3-mini": Price(input=1.10, output=4.40),
    "o4-mini": Price(input=1.10, output=4.40),
    "claude-3-5-haiku-latest": Price(input=0.80, output=4.00),
    "claude-3-7-sonnet-latest": Price(input=3.00, output=15.00),
}

_FREE = frozenset({"scripted", "replay"})


def price_for(spec: ModelSpec) -> Price | None:
    """The price of a model: the scenario's, the table's, free for offline ones, else None."""
    if spec.price is not None:
        return spec.price
    name = spec.model_name()
    if name in PRICES:
        return PRICES[name]
    if spec.provider in _FREE:
        return Price(input=0.0, output=0.0)
    return None
