"""A reading's statement is checked against the documents by code, in the quickstart's team
run on scripted answers: one stating a number no document holds is asked once more with what
is wrong, and the grounded statement is what the team reads; one that stays ungrounded is a
failed grounding check, and the answer resting on it is not verified."""

from __future__ import annotations

import re

import pytest

from bus.payloads import Final, TaskResult
from society.run.runner import RunOutcome

from .conftest import ROOT, RunYaml, payloads

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(240)]

MADE_UP = "There are 1229 primes below 10000, about one in eight numbers."
GROUNDED = (
    "The prime number theorem says that the number of primes not exceeding x, written π(x), "
    "is asymptotic to x / ln(x)."
)


def quickstart(first: str, second: str) -> str:
    """The quickstart, its researcher first stating ``first`` and, told what does not stand
    in the documents, ``second``."""
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    said = f"""  researcher:
    - delay_s: 4
      answer:
        outputs: {{statement: "{first}"}}
        summary: Stated what primes.md says.
        sources: [primes.md]
    - match: Code checked what you stated
      answer:
        outputs: {{statement: "{second}"}}
        summary: Stated the prime number theorem from primes.md.
        sources: [primes.md]
  coder:
"""
    replaced, n = re.subn(
        r"(?ms)^  researcher:\n    # as a real.*?^  coder:\n", said, text, count=1
    )
    assert n == 1
    return replaced


def _theory(outcome: RunOutcome) -> TaskResult:
    (result,) = [r for r in payloads(outcome, "result") if r.task_id == "theory"]
    assert isinstance(result, TaskResult)
    return result


async def test_a_made_up_number_is_sent_back_and_the_grounded_statement_is_read(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(quickstart(MADE_UP, GROUNDED))
    theory = _theory(outcome)
    assert theory.outputs["statement"] == GROUNDED
    (grounding,) = [v for v in theory.verdicts if v.kind == "grounding"]
    assert grounding.passed, grounding.what
    (final,) = payloads(outcome, "final")
    assert isinstance(final, Final) and final.status == "succeeded", final.summary
    (compare,) = [t for t in payloads(outcome, "task") if t.task.id == "compare"]
    assert compare.inputs["statement"] == GROUNDED  # the team reads what stands


async def test_a_statement_that_stays_ungrounded_leaves_the_answer_unverified(
    run_yaml: RunYaml,
) -> None:
    outcome = await run_yaml(quickstart(MADE_UP, MADE_UP))
    theory = _theory(outcome)
    (grounding,) = [v for v in theory.verdicts if v.kind == "grounding"]
    assert not grounding.passed
    assert "1229" in grounding.what and "10000" in grounding.what  # the goal's value too
    (final,) = payloads(outcome, "final")
    assert isinstance(final, Final) and final.status != "succeeded", final.summary
