"""The registry: a role registered once is in every table that lists roles — who may say
what, the servers' users and permissions, the work queues, the scenario's roles, the views."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bus import Envelope, runlog
from bus.authority import may_publish, misfit
from bus.payloads import Final, Plan, TaskResult
from bus.permissions import identity_permissions, role_permissions, roles, server_config
from bus.roster import ROSTER, RoleCard, Roster
from bus.subjects import Channel, matches, subject
from roles.reflector import Reflector
from roles.registry import REGISTRY, SPECIALIST_STYLE, Registration, register, specialist
from roles.settings import ReflectorSettings, SpecialistSettings
from roles.specialist import Specialist
from society.human.state import Conversation
from society.scenario import RolesSpec, _check_registry
from society.view.colours import role_style

pytestmark = pytest.mark.timeout(30)

RUN = "r1"


def allows(rules: dict[str, object], kind: str, value: str) -> bool:
    allow = rules[kind]["allow"]  # type: ignore[index]
    return any(matches(p, value) for p in allow)


@pytest.fixture
def archivist() -> Iterator[Registration]:
    """A role registered for one test (and forgotten after it)."""
    card = RoleCard("archivist", (Channel.LESSON,), queue="task-archivist", takes=(Channel.TASK,))
    registration = register(Registration(card, Reflector, ReflectorSettings, "blue"))
    yield registration
    REGISTRY.pop("archivist")
    ROSTER.withdraw("archivist")


def test_a_role_registered_once_is_in_every_bus_table(archivist: Registration) -> None:
    assert may_publish("archivist", Channel.LESSON)
    assert not may_publish("archivist", Channel.PLAN)
    assert "archivist" in roles()  # a user of its own on a shared server
    assert "task-archivist" in runlog.work_queues()
    assert runlog.queue_stream("task-archivist") == "SOCIETY-task-archivist"
    user = role_permissions("archivist")
    assert allows(user, "publish", "society.r1.lesson")
    assert not allows(user, "publish", "society.r1.final")
    assert allows(
        user, "publish", "$JS.API.CONSUMER.MSG.NEXT.SOCIETY-task-archivist.r1--task-archivist"
    )
    assert '"user": "archivist"' in server_config({"archivist": "pw"})


def test_a_role_registered_once_is_in_the_views(archivist: Registration) -> None:
    assert role_style("archivist") == "blue"
    assert role_style("coder") == "green"
    assert role_style("statistician") == SPECIALIST_STYLE


def test_the_scenario_roles_section_is_held_to_the_registry(
    archivist: Registration,
) -> None:
    with pytest.raises(
        RuntimeError, match=r"RolesSpec and roles.registry disagree: \['archivist'\]"
    ):
        _check_registry()


def test_the_built_in_roles_come_from_the_registry() -> None:
    with_settings = {n for n, r in REGISTRY.items() if r.settings is not None}
    assert set(RolesSpec.model_fields) == with_settings
    assert set(Conversation().roles) == with_settings
    # the runner has no user of its own, nor the verifier (it runs no process of its own)
    assert set(roles()) == with_settings - {"verifier"}
    assert list(runlog.work_queues())[:4] == [
        "manager",
        "plan-request",
        "task-researcher",
        "task-coder",
    ]


def test_a_specialist_is_a_role_of_its_own_on_the_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ROSTER, "_cards", dict(ROSTER._cards))  # enrolled for this test only
    registration = specialist(SpecialistSettings(name="statistician", takes="statistics"))
    assert registration.worker and registration.tools
    cls = registration.cls
    assert cls is not None and issubclass(cls, Specialist) and cls.name == "statistician"
    assert "task-statistician" in runlog.work_queues()
    rules = identity_permissions(RUN, "statistician", "statistician/0")
    assert allows(rules, "publish", "society.r1.result")
    assert allows(rules, "publish", "society.r1.human.answer.statistician-0")
    assert not allows(rules, "publish", "society.r1.plan")
    assert not allows(rules, "publish", "society.r1.task.coder")
    assert allows(rules, "subscribe", "society.r1.chat.statistician")
    assert not allows(rules, "subscribe", "society.r1.chat.coder")
    next_task = "$JS.API.CONSUMER.MSG.NEXT.SOCIETY-task-statistician.r1--task-statistician"
    assert allows(rules, "publish", next_task)
    assert not allows(
        rules, "publish", "$JS.API.CONSUMER.MSG.NEXT.SOCIETY-task-coder.r1--task-coder"
    )
    assert "statistician" not in roles()  # no user on a shared server: it lives for a run


def test_a_specialist_may_not_take_a_built_in_name() -> None:
    with pytest.raises(ValueError, match="built-in role"):
        specialist(SpecialistSettings(name="coder", takes="code"))


def test_a_role_nobody_enrolled_is_judged_as_a_specialist() -> None:
    """A log read without its scenario (replay, the web view) still shows its specialists'
    results; they may report, never steer."""
    result = TaskResult(task_id="t", role="geologist", status="done", outputs={"a": 1})
    said = Envelope.new(RUN, "geologist/0", result)
    assert misfit(subject(RUN, Channel.RESULT), said) is None
    for steering in (Plan(revision=1, tasks=[]), Final(status="succeeded", answer="x")):
        env = Envelope.new(RUN, "geologist/0", steering)
        assert (
            misfit(subject(RUN, steering.CHANNEL), env)
            == "'geologist/0' may not send a " + steering.type
        )


def test_a_process_that_registered_no_roles_is_told_so() -> None:
    with pytest.raises(LookupError, match=r"import roles\.registry"):
        Roster().card("manager")
