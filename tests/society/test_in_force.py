"""The settings in force are resolved by one function, and a scripted run's are a live
run's (one society: the script answers every call the live path makes); what a scenario
states stays, resolving twice changes nothing. The run's goal message records them
(`tests/society/test_run.py`)."""

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
        {"name": "s", "goal": {"text": "count"}, "models": {"default": model}, "roles": roles}
    )


def test_a_scripted_run_is_the_live_society() -> None:
    scripted, live = in_force(scenario("scripted")), in_force(scenario("openai"))
    assert scripted.roles == live.roles
    assert live.roles.coder.cross_check and live.roles.manager.goal_check
    assert live.roles.planner.one_task_first and live.roles.researcher.require_sources
    assert checks_line(scripted) == checks_line(live)
    assert "coder.cross_check on" in checks_line(live)


def test_the_researcher_is_offered_when_it_has_something_to_read() -> None:
    assert in_force(scenario("openai")).roles.planner.offer_researcher is False
    read = in_force(scenario("scripted", researcher={"corpus": ["docs"]}))
    assert read.roles.planner.offer_researcher is True


def test_what_a_scenario_states_stays_and_resolving_twice_changes_nothing() -> None:
    stated = in_force(scenario("scripted", coder={"cross_check": False}))
    assert stated.roles.coder.cross_check is False
    assert in_force(stated) == stated
