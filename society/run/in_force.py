"""The settings actually in force in a run, resolved once from its scenario: the role
settings whose default depends on the run (``None`` in a scenario) get their value here, and
nowhere else. The runner records the resolved scenario in the run's goal message (so the
log says what was in force), prints the checks in its header, and every role is built from
it, in one process or as a worker."""

from __future__ import annotations

from society.scenario import Scenario

__all__ = ["checks_line", "in_force"]


def in_force(scenario: Scenario) -> Scenario:
    """``scenario`` with every run-dependent role setting resolved (idempotent). A setting
    never depends on whether the model is live or scripted (one society: a scripted run
    takes the live path, its script says what every call answers); the researcher is
    offered to the planner when it has something to read (documents or tools)."""
    roles = scenario.roles
    planner, researcher = roles.planner, roles.researcher
    offered = planner.offer_researcher
    if offered is None:
        offered = bool(researcher.corpus or researcher.tools)
    resolved = planner.model_copy(update={"offer_researcher": offered})
    return scenario.model_copy(update={"roles": roles.model_copy(update={"planner": resolved})})


def checks_line(scenario: Scenario) -> str:
    """The checks in force, in one line for the run's header."""
    r = in_force(scenario).roles

    def on(flag: bool | None) -> str:
        return "on" if flag else "off"

    return (
        f"checks: coder.cross_check {on(r.coder.cross_check)}, "
        f"coder.prose {on(r.coder.prose)}, "
        f"verifier.min_confidence {r.verifier.min_confidence:g}, "
        f"manager.goal_check {on(r.manager.goal_check)}, "
        f"planner.one_task_first {on(r.planner.one_task_first)}, "
        f"planner.read_first {on(r.planner.read_first)}, "
        f"planner.offer_researcher {on(r.planner.offer_researcher)}, "
        f"researcher.require_sources {on(r.researcher.require_sources)}"
    )
