"""The planner offers a run's specialists: named among the roles, each with its line, in
the plan schema's role enum, and not passed over for one coding task."""

from __future__ import annotations

import pytest

from bus import ConnectOptions
from bus.payloads import PlanRequest
from roles.context import RoleContext, RoleDeps
from roles.plan_schema import READING_OPENS
from roles.planner import Planner, plan_shape
from roles.settings import PlannerSettings

pytestmark = pytest.mark.timeout(30)

TAKES = "comparing groups of numbers, tests of significance"


def planner(specialists: dict[str, str]) -> Planner:
    ctx = RoleContext(
        "r1",
        ConnectOptions.from_url("nats://127.0.0.1:1"),  # never connected: no start()
        PlannerSettings(one_task_first=True),
        deps=RoleDeps(specialists=specialists),
    )
    return Planner(ctx)


def request(*roles: str) -> PlanRequest:
    return PlanRequest(goal="Compare the classes.", reason="initial", roles=list(roles))


def test_the_prompt_names_each_specialist_with_what_it_takes() -> None:
    asked = request("coder", "statistician")
    text = str(planner({"statistician": TAKES}).prompt(asked)[-1].content)
    assert "Roles that can do tasks: coder, statistician" in text
    assert f"- statistician: {TAKES}" in text
    assert "Specialists" not in str(planner({}).prompt(request("coder"))[-1].content)


def test_the_plan_schema_lets_the_model_name_a_specialist() -> None:
    shape = plan_shape(("coder", "statistician"))
    role = shape.doc["$defs"]["TaskSpec"]["properties"]["role"]
    assert role["enum"] == ["coder", "statistician"]


def test_a_run_with_specialists_is_not_one_coding_task_first() -> None:
    assert planner({})._one_program(request("coder"))
    assert not planner({"statistician": TAKES})._one_program(request("coder", "statistician"))


def _task(tid: str, role: str) -> dict[str, object]:
    return {
        "id": tid,
        "role": role,
        "description": f"{tid} it",
        "inputs": [],
        "outputs": [f"{tid}_value"],
        "depends_on": [],
    }


def test_a_first_plan_over_documents_is_held_to_reading_then_computing() -> None:
    import jsonschema

    doc = plan_shape(("researcher", "coder"), 5, reads_first=True).doc
    last = {**_task("c", "coder"), "outputs": ["answer"]}
    read = {
        **_task("read", "researcher"),
        "description": READING_OPENS + "the theorem.",
        "outputs": ["statement"],
    }
    jsonschema.validate(
        {"success_criteria": ["x"], "tasks": [read, _task("b", "coder"), last]}, doc
    )
    for tasks in (
        [last, read],  # the researcher not first
        [read],  # nothing after the reading
        [read, _task("c", "coder")],  # the last task gives no answer
        [read, {**_task("compare", "researcher"), "outputs": ["answer"]}],  # reading twice
        [read] + [_task(f"c{i}", "coder") for i in range(4)] + [last],  # over 5
        # the live 1.5B readings: a sentence in no document, the goal's own value
        [{**read, "description": "In primes.md, find the statement 'There are many'"}, last],
        [{**read, "description": "Find the limit from the documents."}, last],
        [{**read, "description": READING_OPENS + 'the "limit"'}, last],  # breaks no string
        # held to its opening, a live 1.5B reading was still asked for values to compute
        [{**read, "outputs": ["estimate", "count"]}, last],
        [{**read, "outputs": ["statement", "formula", "fact"]}, last],
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"success_criteria": ["x"], "tasks": tasks}, doc)
    replan = plan_shape(("researcher", "coder"), 5, reads_optional=True).doc
    for tasks in ([read, last], [last], [_task("b", "coder"), last]):
        jsonschema.validate({"success_criteria": ["x"], "tasks": tasks}, replan)
    # the live replans: the researcher given the estimate after the count; no answer at all
    for tasks in (
        [_task("b", "coder"), _task("estimate", "researcher"), last],
        [_task("b", "coder")],
        [_task(f"c{i}", "coder") for i in range(5)] + [last],
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"success_criteria": ["x"], "tasks": tasks}, replan)
    plain = plan_shape(("researcher", "coder"), 5).doc
    jsonschema.validate({"success_criteria": ["x"], "tasks": [_task("c", "coder")]}, plain)
    for gives in ({"outputs": []}, {}):  # a task that gives nothing loses its work
        task = {k: v for k, v in _task("c", "coder").items() if k != "outputs"} | gives
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"success_criteria": ["x"], "tasks": [task]}, plain)
