"""A scripted scenario slow enough to stop mid-run: a researcher's answer and a coder's
program that take seconds, then a join (the resume and cluster tests stop it midway). Its
script takes the live path: the second program of each computation, the verifier's
statement (its goal check is off: see the scenario)."""

from __future__ import annotations

ANSWER = "seven is prime; its square is 49"
"""The final answer of every run of it, stopped or not."""


def durable(
    name: str, *, planner_s: float, researcher_s: float, sandbox_s: float, ack_wait_s: float = 30
) -> str:
    """The scenario: the planner answers after ``planner_s``, the researcher after
    ``researcher_s``, and the coder's first program sleeps ``sandbox_s`` in the sandbox.
    The planner is asked (``one_task_first`` off) for a plan of three tasks (no goal check
    beside them); the researcher is offered though it has nothing to read."""
    return f"""
name: {name}
goal:
  text: Find a fact about n and compute n squared slowly, then combine them.
  inputs: {{n: 7}}
models: {{default: {{provider: scripted}}}}
roles:
  planner: {{one_task_first: false, offer_researcher: true}}
  researcher: {{require_sources: false}}  # nothing to read: the fact is scripted
  # no goal check: a fourth task racing the join for the one coder would make which result
  # comes last (the final's parent) depend on timing, and a resumed run is compared exactly
  manager: {{goal_check: false}}
delivery: {{ack_wait_s: {ack_wait_s}}}
sandbox: {{timeout_s: 90, pool_size: 1}}
budgets: {{wall_s: 600}}
script:
  planner:
    - delay_s: {planner_s}
      answer:
        success_criteria: [the fact and the square are combined]
        tasks:
          - {{id: fact, role: researcher, description: State a fact about n., inputs: [n], outputs: [fact]}}
          - {{id: square, role: coder, description: Compute n squared slowly., inputs: [n], outputs: [square]}}
          - {{id: combine, role: coder, description: Combine the fact and the square into the answer., inputs: [fact, square], outputs: [answer], depends_on: [fact, square]}}
  researcher:
    - delay_s: {researcher_s}
      answer:
        outputs: {{fact: "seven is prime"}}
        summary: A fact about seven.
  coder:
    - match: Answer the overall goal on your own
      answer: |
        ```python
        import json
        n = json.load(open("inputs.json"))["n"]
        json.dump({{"independent_answer": f"{{n}} squared is {{n ** 2}}"}}, open("outputs.json", "w"))
        ```
    - match: (?s)Compute n squared slowly.*independent check of a teammate
      answer: |
        ```python
        import json
        values = json.load(open("inputs.json"))
        square = sum(values["n"] for _ in range(values["n"]))
        print(square)
        ```
    - match: (?s)Combine the fact.*independent check of a teammate
      answer: |
        ```python
        import json
        values = json.load(open("inputs.json"))
        sentence = "; ".join([values["fact"], "its square is " + str(values["square"])])
        json.dump({{"answer": sentence}}, open("outputs.json", "w"))
        ```
    - instructions: without seeing it
      answer: {{kind: text, values_asked: 1}}
    - match: Compute n squared slowly
      answer: |
        ```python
        import json, time
        n = json.load(open("inputs.json"))["n"]
        time.sleep({sandbox_s})
        json.dump({{"square": n * n}}, open("outputs.json", "w"))
        ```
    - match: Combine the fact
      answer: |
        ```python
        import json
        i = json.load(open("inputs.json"))
        json.dump({{"answer": f"{{i['fact']}}; its square is {{i['square']}}"}}, open("outputs.json", "w"))
        ```
"""
