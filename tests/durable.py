"""A scripted scenario slow enough to stop mid-run: a researcher's answer and a coder's
program that take seconds, then a join (the resume and cluster tests stop it midway)."""

from __future__ import annotations

ANSWER = "seven is prime; its square is 49"
"""The final answer of every run of it, stopped or not."""


def durable(
    name: str, *, planner_s: float, researcher_s: float, sandbox_s: float, ack_wait_s: float = 30
) -> str:
    """The scenario: the planner answers after ``planner_s``, the researcher after
    ``researcher_s``, and the coder's first program sleeps ``sandbox_s`` in the sandbox."""
    return f"""
name: {name}
goal:
  text: Find a fact about n and compute n squared slowly, then combine them.
  inputs: {{n: 7}}
models: {{default: {{provider: scripted}}}}
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
    - match: n squared slowly
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
