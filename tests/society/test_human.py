"""A human takes part in runs: real ``society attach`` processes driven through stdin, and
tests acting as a person on the bus, against the session's real nats-server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bus import Bus
from bus.payloads import (
    Answer,
    Chat,
    Final,
    Lesson,
    PlanDecision,
    PlanRequest,
    Presence,
    Question,
    Usage,
)
from roles.memory import Memory

from .conftest import ROOT, RunYaml, payloads, records
from .humans import Proc, Watch

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(120)]


@pytest.fixture
async def watch(nats_url: str, run_id: str) -> AsyncIterator[Watch]:
    async with Bus(nats_url, name="test-watch") as bus:
        yield await Watch(bus, run_id).start()


APPROVAL = """
name: approval
goal: {text: Explain what a prime number is.}
models: {default: {provider: scripted}}
roles:
  human: {plan_approval: true, timeout_s: 100}
  planner: {one_task_first: false}  # the people and the planner's plans are the point
  researcher: {corpus: [corpus]}
  manager: {goal_check: false}
script:
  planner:
    - answer: {success_criteria: [a prime is defined], tasks: [{id: history, role: researcher, description: Tell the whole history of prime numbers since antiquity., outputs: [answer]}]}
    - match: "alice rejected plan 1: Too broad, just define a prime"
      answer: {success_criteria: [a prime is defined], tasks: [{id: define, role: researcher, description: Define a prime number in one sentence., outputs: [answer]}]}
  researcher:
    - match: "bob says: Mention Euclid"
      answer: {outputs: {answer: "A prime is a whole number above 1 whose only divisors are 1 and itself; Euclid proved there are infinitely many."}, sources: [primes.md]}
"""


async def test_attached_people_reject_remark_and_approve(
    run_yaml: RunYaml, run_id: str, nats_url: str, watch: Watch, procs: list[Proc]
) -> None:
    run = watch.during(run_yaml(APPROVAL, run_id=run_id))
    await watch.wait_for("question")
    for name in ("alice", "bob"):
        procs.append(await Proc.start("attach", run_id, "--nats", nats_url, "--name", name))
    alice, bob = procs
    for person in procs:  # the conversation so far, and what waits for an answer
        await person.expect(r"planner/0 +plan 1: 1 tasks")
        await person.expect(r"waiting: #1 plan approval from manager/0")
    await alice.send("reject Too broad, just define a prime")
    await bob.expect(r"alice answers #1 \[manager-0-1\]: reject: Too broad, just define a prime")
    await bob.expect(r"\? #2 \[manager-0-2\] plan approval for the human")
    await bob.send("approve #1")  # too late: alice's answer counted
    await bob.expect(r"notice: #1 was already settled by alice; yours is not sent")
    await bob.send("say @researcher Mention Euclid")
    await alice.expect(r"human/bob +bob → researcher: Mention Euclid")
    await alice.send("approve")
    for person in procs:
        await person.expect(r"final: succeeded")
        assert await person.finish() == 0, person.transcript
    outcome = await asyncio.wait_for(run, 45)

    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None and "Euclid" in (outcome.final.answer or "")
    envs = [r.envelope for r in records(outcome) if r.envelope]
    said = [(e.sender, e.payload) for e in envs if e.role == "human"]
    assert [(s, p.type) for s, p in said if p.type != "presence"] == [
        ("human/alice", "answer"),
        ("human/bob", "chat"),
        ("human/alice", "answer"),
    ]
    rejected, approved = [p for p in payloads(outcome, "answer") if isinstance(p, Answer)]
    assert (rejected.by, rejected.approved, rejected.text) == (
        "alice",
        False,
        "Too broad, just define a prime",
    )
    assert (approved.by, approved.approved) == ("alice", True)
    assert {(s, p.status) for s, p in said if isinstance(p, Presence)} >= {
        ("human/alice", "up"),
        ("human/bob", "up"),
    }
    chat = next(p for s, p in said if isinstance(p, Chat))
    assert (chat.to, chat.by, chat.text) == ("researcher", "bob", "Mention Euclid")
    # the planner's reaction: a rejected-plan request carrying the reason, and a new plan
    requests: list[PlanRequest] = payloads(outcome, "plan_request")
    assert [(r.reason, r.revision) for r in requests] == [("initial", 1), ("rejected", 2)]
    assert outcome.state.replans == 0  # a person's rejection is not a replan the budget pays
    assert requests[1].critique == "alice rejected plan 1: Too broad, just define a prime"
    decisions: list[PlanDecision] = payloads(outcome, "plan_decision")
    assert [(d.revision, d.accepted) for d in decisions] == [(1, False), (2, True)]
    plans = [p.tasks[0].id for p in payloads(outcome, "plan")]
    assert plans == ["history", "define"]  # the second plan answered the reason
    assert [a.task.id for a in payloads(outcome, "task")] == ["define"]
    planner_answers = [
        e.payload.answer for e in envs if e.role == "planner" and isinstance(e.payload, Usage)
    ]
    assert "define" in (planner_answers[1] or "")


NOBODY = """
name: nobody
goal: {text: Say which sieve finds primes.}
models: {default: {provider: scripted}}
roles:
  human: {plan_approval: true, questions: true, timeout_s: 0.3}
  planner: {one_task_first: false}  # the people and the planner's plans are the point
  researcher: {corpus: [corpus]}
  manager: {goal_check: false}
script:
  planner:
    - answer: {success_criteria: [a sieve is named], tasks: [{id: sieve, role: researcher, description: Say which sieve finds the primes up to a limit., outputs: [answer]}]}
  researcher:
    - match: "Say which sieve"
      answer: {ask_human: "Should I name the sieve of Eratosthenes or of Atkin?"}
    - match: "Nobody answered in time: decide yourself"
      answer: {outputs: {answer: "The sieve of Eratosthenes."}, sources: [primes.md]}
"""


async def test_with_nobody_attached_each_question_times_out_to_its_default(
    run_yaml: RunYaml, nats_url: str, procs: list[Proc]
) -> None:
    outcome = await run_yaml(NOBODY)
    assert outcome.exit_code == 0, outcome.final
    questions: list[Question] = payloads(outcome, "question")
    assert [(q.kind, q.default) for q in questions] == [
        ("plan_approval", "approve"),
        ("question", "(no answer: decide yourself)"),
    ]
    answers: list[Answer] = payloads(outcome, "answer")
    assert [(a.question_id, a.by) for a in answers] == [
        (questions[0].question_id, "default"),
        (questions[1].question_id, "default"),
    ]
    assert answers[0].approved is True
    for a in answers:
        assert "nobody answered within 0.3s (no human attached)" in a.note
    by_id = {r.envelope.id: r.envelope for r in records(outcome) if r.envelope}
    decision = next(e for e in by_id.values() if isinstance(e.payload, PlanDecision))
    assert by_id[decision.parent_id or ""].payload == answers[0]  # approved by the default
    assert any("no answer to manager-0-1: nobody answered" in e for e in outcome.state.events)
    assert outcome.final is not None and outcome.final.answer == "The sieve of Eratosthenes."
    # attaching afterwards shows how it went, and that it is over
    procs.append(await Proc.start("attach", outcome.run_id, "--nats", nats_url))
    late = procs[0]
    await late.expect(
        r"manager/0 +no answer to #1 \[manager-0-1\]: nobody answered within 0.3s "
        r"\(no human attached\); proceeding on the default 'approve'"
    )
    await late.expect(rf"run {outcome.run_id} has ended \(succeeded\)")
    assert await late.finish() == 0


async def test_a_second_approval_of_the_same_plan_is_ignored_with_a_notice(
    run_yaml: RunYaml, run_id: str, watch: Watch
) -> None:
    run = watch.during(run_yaml(APPROVAL, run_id=run_id))
    asked = await watch.wait_for("question")
    assert isinstance(asked.payload, Question)
    qid = asked.payload.question_id
    await watch.send("human/bob", Chat(text="Mention Euclid", to="researcher", by="bob"))
    for person in ("alice", "bob"):  # both approve before either hears of the other
        await watch.send(
            f"human/{person}",
            Answer(question_id=qid, approved=True, by=person),
            parent_id=asked.id,
        )
    notice = await watch.wait_for("chat", lambda p: p.to == "human")
    assert notice.sender == "manager/0"
    assert notice.payload.text == (  # type: ignore[union-attr]
        f"bob's answer to {qid} (approved) is ignored: alice already settled it (approved)"
    )
    outcome = await asyncio.wait_for(run, 45)
    # the plan was approved once and started once
    decisions: list[PlanDecision] = payloads(outcome, "plan_decision")
    assert [(d.revision, d.accepted) for d in decisions] == [(1, True)]
    assert [a.task.id for a in payloads(outcome, "task")] == ["history"]


RATE_AND_ASK = """
name: rate_and_ask
goal: {text: "Explain primes, then name a sieve."}
models: {default: {provider: scripted}}
roles:
  human: {questions: true, timeout_s: 100}
  planner: {one_task_first: false}  # the people and the planner's plans are the point
  researcher: {corpus: [corpus]}
  manager: {goal_check: false}
script:
  planner:
    - answer:
        success_criteria: [primes are explained, a sieve is named]
        tasks:
          - {id: explain, role: researcher, description: Explain what a prime number is., outputs: [meaning]}
          - {id: sieve, role: researcher, description: Name a sieve that finds prime numbers., inputs: [meaning], outputs: [answer], depends_on: [explain]}
  researcher:
    - match: "Explain what a prime"
      answer: {outputs: {meaning: "a number above 1 divisible only by 1 and itself"}}
    - match: "Name a sieve"
      answer: {ask_human: "Eratosthenes or Atkin?"}
    - match: "answered: Atkin please"
      answer: {outputs: {answer: "The sieve of Atkin."}, sources: [primes.md]}
"""


async def test_a_role_asks_the_person_who_rates_a_result_meanwhile(
    run_yaml: RunYaml,
    run_id: str,
    nats_url: str,
    watch: Watch,
    procs: list[Proc],
    tmp_path: Path,
) -> None:
    run = watch.during(run_yaml(RATE_AND_ASK, run_id=run_id))
    await watch.wait_for("question")
    procs.append(await Proc.start("attach", run_id, "--nats", nats_url, "--name", "carol"))
    carol = procs[0]
    await carol.expect(r"waiting: #1 question from researcher/0 .*: Eratosthenes or Atkin\?")
    await carol.expect(r"human/carol +carol attached")
    # another person under the same name is told apart
    procs.append(await Proc.start("attach", run_id, "--nats", nats_url, "--name", "carol"))
    other = procs[1]
    await other.expect(r"carol is already attached: you are carol-2")
    await other.send("quit")
    assert await other.finish() == 0
    await carol.expect(r"human/carol-2 +carol-2 left")
    await carol.send("rate nosuch 3")
    await carol.expect(r"task 'nosuch' has no result to rate \(tasks with results: explain\)")
    await carol.send("rate explain 4 clear, but say why 1 is not prime")
    await carol.expect(r"lesson: carol rated the result of 'Explain what a prime number is.' 4/5")
    await carol.send("answer #1 Atkin please")
    await carol.expect(r"final: succeeded")
    assert await carol.finish() == 0, carol.transcript
    outcome = await asyncio.wait_for(run, 45)

    assert outcome.final is not None and outcome.final.answer == "The sieve of Atkin."
    answer: Answer = payloads(outcome, "answer")[0]
    assert (answer.by, answer.text) == ("carol", "Atkin please")
    lessons: list[Lesson] = payloads(outcome, "lesson")
    assert any("4/5: clear, but say why 1 is not prime" in lesson.text for lesson in lessons)
    memory = Memory(tmp_path / "memory")  # what later runs recall
    try:
        hits = memory.search("prime number rated", 5, kind="feedback")
    finally:
        memory.close()
    assert [h.text for h in hits] == [
        "carol rated the result of 'Explain what a prime number is.' 4/5: "
        "clear, but say why 1 is not prime"
    ]


async def test_escalation_lets_the_person_attached_grant_one_more_replan(
    run_yaml: RunYaml, run_id: str, watch: Watch
) -> None:
    text = (ROOT / "scenarios" / "failures" / "same_error.yaml").read_text()
    run = watch.during(run_yaml(text.replace("replans: 2", "replans: 0"), run_id=run_id))
    await watch.wait_for("goal")
    await watch.send("human/dana", Presence(status="up", role="human"))
    asked = await watch.wait_for("question", lambda q: q.kind == "escalation")
    question = asked.payload
    assert isinstance(question, Question)
    assert "The replan budget (0) is spent" in question.text
    reply = Answer(question_id=question.question_id, text="replan multiply in a loop", by="dana")
    await watch.send("human/dana", reply, parent_id=asked.id)
    outcome = await asyncio.wait_for(run, 45)
    assert outcome.exit_code == 0, outcome.final
    requests: list[PlanRequest] = payloads(outcome, "plan_request")
    assert [r.reason for r in requests] == ["initial", "escalation"]
    assert "Guidance from dana: multiply in a loop" in (requests[1].critique or "")
    assert "same_error" in (requests[1].critique or "")


async def test_escalation_with_nobody_attached_stops_and_says_so(run_yaml: RunYaml) -> None:
    text = (ROOT / "scenarios" / "failures" / "same_error.yaml").read_text()
    outcome = await run_yaml(text.replace("replans: 2", "replans: 0"))
    final: Final = payloads(outcome, "final")[0]
    assert final.status == "budget_exhausted"
    assert final.reason.endswith("(no human attached to escalate to)")
    assert payloads(outcome, "question") == []
