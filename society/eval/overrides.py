"""``society eval --set roles.<role>.<field>=<value>``: a role setting every case's society
runs with, on top of the suite's — an ablation at one commit (``roles.planner.read_first=true``
is the society with the reading plan), recorded in the results' settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError

from society.errors import RunError
from society.scenario import Scenario

__all__ = ["parse_sets", "with_sets"]


def parse_sets(given: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` items as a mapping (each value read as YAML: ``false``, ``3``, ``[a]``)."""
    sets: dict[str, Any] = {}
    for item in given:
        key, eq, text = item.partition("=")
        parts = key.strip().split(".")
        if not eq or len(parts) != 3 or parts[0] != "roles" or not all(parts):
            msg = f"--set {item!r}: give roles.<role>.<setting>=<value>"
            raise RunError(msg)
        try:
            sets[key.strip()] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            msg = f"--set {item!r}: the value is not YAML ({exc})"
            raise RunError(msg) from None
    return sets


def with_sets(scenario: Scenario, sets: Mapping[str, Any]) -> Scenario:
    """``scenario`` with each ``roles.<role>.<setting>`` of ``sets`` set, checked as the
    scenario file would be (an unknown role or setting, or a wrong value, is a `RunError`)."""
    roles = scenario.roles
    for key, value in sets.items():
        _, role, field = key.split(".")
        current = getattr(roles, role, None)
        if current is None:
            msg = f"--set {key}: no role {role!r} has settings (roles: {', '.join(type(roles).model_fields)})"
            raise RunError(msg)
        if field not in type(current).model_fields:
            msg = f"--set {key}: the {role} has no setting {field!r}"
            raise RunError(msg)
        try:
            updated = type(current).model_validate({**current.model_dump(), field: value})
        except ValidationError as exc:
            msg = f"--set {key}={value!r}: {exc.errors()[0]['msg']}"
            raise RunError(msg) from None
        roles = roles.model_copy(update={role: updated})
    return scenario.model_copy(update={"roles": roles})
