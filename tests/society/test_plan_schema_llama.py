"""The first plan's schema over documents against a real llama.cpp server (llama-cpp-python,
Qwen2.5-Coder-0.5B): decoding holds the reading task's description to its opening and its
outputs to what documents state, so a small model cannot give the researcher a computation
or a sentence it made up."""

from __future__ import annotations

import json
import re
from typing import Any

import openai
import pytest

from roles.plan_schema import READING_OPENS, READING_OUTPUTS, plan_shape

pytestmark = [pytest.mark.timeout(900)]

GOAL = (
    "Count the prime numbers below the given limit and compare the count with what the prime "
    "number theorem predicts; report the count, the estimate and how close they are."
)


def test_the_reading_task_of_a_first_plan_over_documents_opens_as_held(qwen_server: str) -> None:
    schema = plan_shape(("researcher", "coder"), 3, reads_first=True).doc
    fmt: Any = {"type": "json_object", "schema": schema}  # llama.cpp's form
    client = openai.OpenAI(base_url=qwen_server, api_key="sk-local", timeout=800)
    reply = client.chat.completions.create(
        model="qwen2.5-coder-0.5b",
        messages=[
            {"role": "system", "content": "You plan tasks for a team. Answer in JSON."},
            {
                "role": "user",
                "content": f"Goal: {GOAL}\nValues given with the goal: limit\n"
                "Documents the researcher can read: primes.md\n"
                "Give the researcher the first task: find the statement "
                "'There are infinitely many prime numbers' in primes.md.",
            },
        ],
        response_format=fmt,
        max_tokens=400,
        temperature=0,
    )
    content = reply.choices[0].message.content or ""
    # the first description in the answer is the reading's (an answer cut at the limit too)
    first = re.search(r'"description"\s*:\s*"([^"]*)', content)
    assert first is not None, content
    assert first.group(1).startswith(READING_OPENS), content
    assert len(first.group(1)) > len(READING_OPENS), content  # and it names what to find
    try:
        plan = json.loads(content)
    except json.JSONDecodeError:
        return  # cut at the token limit: the opening is what this test is about
    assert plan["tasks"][0]["role"] == "researcher"
    assert set(plan["tasks"][0]["outputs"]) <= set(READING_OUTPUTS)
    assert plan["tasks"][-1]["outputs"] == ["answer"]
