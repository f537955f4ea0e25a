"""The settings actually in force in a run, resolved once from its scenario: the role
settings whose default depends on the run (``None`` in a scenario) get their value here, and
nowhere else. The runner records the resolved scenario in the run's goal message (so the
log says what was in force), prints the checks in its header, and every role is built from
it, in one process or as a worker."""

from __future__ import annotations

from society.scenario import Scenario

__all__ = ["checks_line", "in_force"]


def _live(scenario: Scenario, model: str) -> bool:
    """Whether ``model`` is a live model (not scripted answers)."""
    return model in scenario.models and scenario.models[model].provider != "scripted"


def in_force(scenario: Scenario) -> Scenario:
    """``scenario`` with every run-dependent role setting resolved (idempotent): checks that
    cost model calls or need documents are on for live models; the researcher is offered when
    it has something to read (documents or tools), or its answers are scripted."""
    roles = scenario.roles
    coder, researcher = roles.coder, roles.researcher
    planner, manager = roles.planner, roles.manager
    readable = bool(researcher.corpus or researcher.tools)
    resolved = {
        "coder": coder.model_copy(
            update={"cross_check": _pick(coder.cross_check, _live(scenario, coder.model))}
        ),
        "researcher": researcher.model_copy(
            update={
                "require_sources": _pick(
                    researcher.require_sources, _live(scenario, researcher.model)
                )
            }
        ),
        "planner": planner.model_copy(
            update={
                "offer_researcher": _pick(
                    planner.offer_researcher, readable or not _live(scenario, planner.model)
                ),
                "one_task_first": _pick(planner.one_task_first, _live(scenario, planner.model)),
            }
        ),
        "manager": manager.model_copy(
            update={"goal_check": _pick(manager.goal_check, _live(scenario, coder.model))}
        ),
    }
    return scenario.model_copy(update={"roles": roles.model_copy(update=resolved)})


def _pick(given: bool | None, default: bool) -> bool:
    return default if given is None else given


def checks_line(scenario: Scenario) -> str:
    """The checks in force, in one line for the run's header."""
    r = in_force(scenario).roles

    def on(flag: bool | None) -> str:
        return "on" if flag else "off"

    return (
        f"checks: coder.cross_check {on(r.coder.cross_check)}, "
        f"manager.goal_check {on(r.manager.goal_check)}, "
        f"planner.one_task_first {on(r.planner.one_task_first)}, "
        f"planner.offer_researcher {on(r.planner.offer_researcher)}, "
        f"researcher.require_sources {on(r.researcher.require_sources)}"
    )
