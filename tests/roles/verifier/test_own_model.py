"""The verifier is a role with its own settings and its own model: a scenario may give the
checking to another model than the solving. On a scripted run without Docker or NATS (the
package's mock code runner, a recording bus), the verifier's statement comes from the
verifier's model and the programs from the coder's."""

from __future__ import annotations

from pathlib import Path

import pytest

from bus import ConnectOptions, Envelope
from bus.payloads import TaskAssignment, TaskSpec, Usage
from roles.coder.role import Coder
from roles.context import RoleContext, RoleDeps
from roles.model_access import ModelAccess
from roles.settings import CoderSettings, VerifierSettings
from sandbox.mock import MockRunner, local_python
from society.models.scripted import ScriptedChatCompletionClient
from society.models.spec import ScriptedAnswer
from society.scenario import Scenario
from tests.roles.recorder import Recorder

pytestmark = pytest.mark.timeout(60)

ONE = "print(sum(all(n % d for d in range(2, n)) for n in range(2, 100)))"
TWO = "c = 0\nfor n in range(2, 100):\n    c += all(n % d for d in range(2, n))\nprint(c)"


def access(name: str, answers: list[ScriptedAnswer]) -> ModelAccess:
    return ModelAccess(client=ScriptedChatCompletionClient(answers, name=name), model=name)


async def test_the_verifier_states_its_check_on_its_own_model(tmp_path: Path) -> None:
    solver = access("small", [ScriptedAnswer(answer=f"```python\n{c}\n```") for c in (ONE, TWO)])
    judge = access("strong", [ScriptedAnswer(answer={"kind": "count"})])
    deps = RoleDeps(model=solver, judge=judge, code=MockRunner(local_python))
    ctx = RoleContext(
        "r1",
        ConnectOptions.from_url("nats://127.0.0.1:1"),
        CoderSettings(plain=False),  # the second program is the team's own request
        run_dir=tmp_path,
        deps=deps,
    )
    coder = Coder(ctx)
    recorder = Recorder()
    coder.bus = recorder  # type: ignore[assignment]
    job = TaskAssignment(
        task=TaskSpec(id="t", role="coder", description="primes below 100", outputs=["answer"]),
        goal="How many primes are there below 100?",
    )
    result = await coder.work(Envelope.new("r1", "manager/0", job, task_id="t"), job)
    assert {v.kind: v.passed for v in result.verdicts} == {"agreement": True, "property": True}
    models = [p.model for p in recorder.sent if isinstance(p, Usage) and p.kind == "model"]
    assert models == ["strong", "small", "small"]  # the statement first, from the verifier


def test_a_scenario_gives_the_verifier_its_settings() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "s",
            "goal": {"text": "count"},
            "models": {"default": {"provider": "scripted"}, "strong": {"provider": "scripted"}},
            "roles": {"verifier": {"model": "strong", "function_tests": False}},
        }
    )
    assert scenario.roles.verifier == VerifierSettings(model="strong", function_tests=False)
    assert scenario.model_uses()["verifier"] == "strong"
