"""The settings in force are resolved by one function: what a scenario leaves to the run is
resolved by the model, what it states stays, resolving twice changes nothing, and the run's
goal message records the resolved settings (`tests/society/test_run.py`)."""

from __future__ import annotations

import pytest

from society.run.in_force import checks_line, in_force
from society.scenario import Scenario

pytestmark = pytest.mark.timeout(60)


def scenario(provider: str, **roles: object) -> Scenario:
    model: dict[str, object] = {"provider": provider}
    if provider != "scripted":
        model |= {"config": {"model": "m", "base_url": "http://127.0.0.1:9/v1"}}
    return Scenario.model_validate(
        {
            "name": "s",
            "goal": {"text": "count"},
            "models": {"default": model},
            "roles": roles,
        }
    )


def test_run_dependent_settings_are_resolved_by_the_model() -> None:
    scripted, live = in_force(scenario("scripted")), in_force(scenario("openai"))
    assert scripted.roles.coder.cross_check is False and live.roles.coder.cross_check is True
    assert live.roles.manager.goal_check is True and live.roles.planner.one_task_first is True
    assert "coder.cross_check on" in checks_line(live)
    assert "coder.cross_check off" in checks_line(scripted)


def test_what_a_scenario_states_stays_and_resolving_twice_changes_nothing() -> None:
    stated = in_force(scenario("scripted", coder={"cross_check": True}))
    assert stated.roles.coder.cross_check is True
    assert in_force(stated) == stated
    assert stated.roles.planner.offer_researcher is True  # scripted: always offered
