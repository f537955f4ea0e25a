"""A program that ran is fixed from what went wrong, on scripted answers: a main() never
called gets a hint that names it, a forgotten import is added before the run, and the same
failing program again is not run but asked afresh."""

from __future__ import annotations

import json

import pytest

from roles.program import LINE

from .conftest import RunYaml, payloads

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]


MAIN_NOT_CALLED = """
name: main_not_called
goal: {text: Double n., inputs: {n: 21}}
models: {default: {provider: scripted}}
roles: {coder: {cross_check: false}}
sandbox: {timeout_s: 20, pool_size: 1}
budgets: {wall_s: 120}
script:
  planner:
    - answer:
        success_criteria: [n doubled]
        tasks: [{id: double, role: coder, description: Double n., inputs: [n], outputs: [answer]}]
  coder:
    - match: 'main\\(\\) is defined but never called'
      answer: |
        ```python
        import json
        def main():
            json.dump({"answer": json.load(open("inputs.json"))["n"] * 2}, open("outputs.json", "w"))
        main()
        ```
    - answer: |
        ```python
        import json
        def main():
            json.dump({"answer": json.load(open("inputs.json"))["n"] * 2}, open("outputs.json", "w"))
        ```
"""


async def test_main_defined_and_never_called_gets_a_hint_that_names_it(run_yaml: RunYaml) -> None:
    outcome = await run_yaml(MAIN_NOT_CALLED)
    assert outcome.final is not None and outcome.final.answer == "42", outcome.final
    assert [r.exit_code for r in payloads(outcome, "exec_result")] == [0, 0]


FORGOT_IMPORT = """
name: forgot_import
goal: {text: On which day of the week was 20 July 1969?}
models: {default: {provider: scripted}}
roles: {coder: {cross_check: false}}
sandbox: {timeout_s: 20, pool_size: 1}
budgets: {wall_s: 120}
script:
  planner:
    - answer:
        success_criteria: [the weekday is given]
        tasks: [{id: weekday, role: coder, description: Find the weekday of 1969-07-20., outputs: [answer]}]
  coder:
    - answer: |
        ```python
        day = datetime.date(1969, 7, 20).strftime("%A")
        json.dump({"answer": day}, open("outputs.json", "w"))
        ```
"""


async def test_a_module_the_program_forgot_to_import_is_imported_before_it_runs(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(FORGOT_IMPORT)
    assert outcome.final is not None and outcome.final.answer == "Sunday", outcome.final
    (request,) = payloads(outcome, "exec_request")
    assert request.code.removeprefix(LINE).startswith("import datetime\nimport json\n")


SAME_AGAIN = """
name: same_again
goal: {text: Double n., inputs: {n: 21}}
models: {default: {provider: scripted}}
roles: {coder: {cross_check: false, max_attempts: 3}}
sandbox: {timeout_s: 20, pool_size: 1}
budgets: {wall_s: 120}
script:
  planner:
    - answer:
        success_criteria: [n doubled]
        tasks: [{id: double, role: coder, description: Double n., outputs: [answer]}]
  coder:
    - answer: |
        ```python
        import json
        json.dump({"answer": json.load(open("inputs.json"))["m"] * 2}, open("outputs.json", "w"))
        ```
    - answer: |
        ```python
        import json
        json.dump({"answer": json.load(open("inputs.json"))["m"] * 2}, open("outputs.json", "w"))
        ```
    - answer: |
        ```python
        import json
        json.dump({"answer": json.load(open("inputs.json"))["n"] * 2}, open("outputs.json", "w"))
        ```
"""


async def test_the_same_failing_program_again_is_not_run_and_the_task_is_asked_afresh(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(SAME_AGAIN)
    assert outcome.final is not None and outcome.final.answer == "42", outcome.final
    assert [r.exit_code for r in payloads(outcome, "exec_result")] == [1, 0]
    asked = [json.loads(p.read_text())["messages"] for p in (outcome.run_dir / "prompts").iterdir()]
    (afresh,) = [m for m in asked if "gave the same program again" in json.dumps(m)]
    assert len(afresh) == 2  # the system prompt and the task: not the conversation that looped
    assert "Double n." in afresh[-1]["content"] and "KeyError: 'm'" in afresh[-1]["content"]
