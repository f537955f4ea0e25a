"""A bus that trusts no one, over a real run's own nats-server: strangers are refused,
misplaced or spoofed messages are dead-lettered once, roles cannot reach each other's
queues, and people act only with their own credential and the powers the scenario gives.

Each attack comes from the red-team report of the issue; the run's outcome must stay what
the people who may decide make it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nats.errors
import pytest

from bus import Bus, BusConnectError, ConnectOptions, Envelope, encode, runlog, subjects
from bus.logfile import read_jsonl
from bus.payloads import Answer, Chat, DeadLetter, Final, Plan, Question
from bus.subjects import Channel
from society.credentials import load_credential
from tests.bus.live import refused

from .humans import Proc

pytestmark = [pytest.mark.nats, pytest.mark.timeout(240)]

GUARDED = """
name: guarded
goal:
  text: Explain what a prime number is and describe one sieve that finds primes.
models:
  default: {provider: scripted}
roles:
  human: {plan_approval: true, questions: true, timeout_s: 600, approvers: [ada], stoppers: [ada]}
  planner: {one_task_first: false}  # the plan the people decide on is the researcher's two steps
  researcher: {corpus: [primes.md]}
budgets: {wall_s: 900}
script:
  planner:
    - answer:
        success_criteria: [primes are defined, a sieve is described]
        tasks:
          - {id: define, role: researcher, description: Explain what a prime number is., outputs: [meaning]}
          - {id: sieve, role: researcher, description: Describe one sieve., inputs: [meaning], outputs: [answer], depends_on: [define]}
  researcher:
    - match: 'Your task \\(define\\)'
      answer: {outputs: {meaning: "a whole number above 1 whose only divisors are 1 and itself"}, sources: [primes.md]}
    - match: 'Your task \\(sieve\\)'
      answer: {ask_human: "Which sieve should I describe: Eratosthenes or Atkin?"}
    - match: 'answered: .*Atkin'
      answer: {outputs: {answer: "The sieve of Atkin works modulo 60."}, sources: [primes.md]}
  coder:
    - match: Answer the overall goal on your own  # the goal check: its own answer, from the document
      answer: |
        ```python
        import json
        text = open("primes.md").read()
        sieve = next(s for s in text.replace(";", ".").split(".") if "Atkin" in s).strip()
        said = f"A prime is divisible only by itself and one; {sieve}."
        json.dump({"independent_answer": said}, open("outputs.json", "w"))
        ```
"""
PRIMES = """A prime number is a whole number above 1 whose only divisors are 1 and itself.
The sieve of Eratosthenes crosses out multiples; the sieve of Atkin works modulo 60.
"""
"""The document `GUARDED`'s researcher reads and cites (its answers are checked by sources)."""


def write_guarded(folder: Path) -> Path:
    """`GUARDED` and its document written into ``folder``; the scenario's path."""
    (folder / "primes.md").write_text(PRIMES)
    scenario = folder / "guarded.yaml"
    scenario.write_text(GUARDED)
    return scenario


def login(url: str, creds: Path) -> ConnectOptions:
    return load_credential(creds).options(ConnectOptions.from_url(url))


class Log:
    """A run's messages as they are stored, read with a person's credential."""

    def __init__(self) -> None:
        self.seen: list[Envelope] = []
        self._arrived = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def follow(self, bus: Bus, run_id: str) -> None:
        async def read() -> None:
            async for record in runlog.follow_run(bus, run_id):
                if record.envelope is not None:
                    self.seen.append(record.envelope)
                    self._arrived.set()

        self._task = asyncio.get_running_loop().create_task(read())

    def of(self, kind: str, where: Callable[[Any], bool] = lambda p: True) -> list[Any]:
        return [e.payload for e in self.seen if e.payload.type == kind and where(e.payload)]

    async def until(self, check: Callable[[], Any], timeout: float = 60.0) -> Any:
        """Until ``check`` (of what was stored so far) gives something true."""
        async with asyncio.timeout(timeout):
            while not (found := check()):
                self._arrived.clear()
                await self._arrived.wait()
        return found

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


@pytest.mark.docker  # the goal check runs its program in the sandbox
async def test_strangers_spoofers_and_people_without_the_power_change_nothing(
    tmp_path: Path, procs: list[Proc]
) -> None:
    scenario = write_guarded(tmp_path)
    runs, run_id = tmp_path / "runs", "guarded-1"
    run = await Proc.start("run", str(scenario), "--runs-dir", str(runs), "--run-id", run_id)
    procs.append(run)
    await run.expect(rf"take part: society attach {run_id} --runs-dir")
    run_dir = runs / run_id
    server = json.loads((run_dir / "server.json").read_text())
    url, creds = server["url"], run_dir / "creds"
    assert (creds.stat().st_mode & 0o777) == 0o700
    assert all((f.stat().st_mode & 0o777) == 0o600 for f in creds.iterdir())

    # A stranger (no credential, or a made-up one) is refused, and told what is missing.
    for options in (
        ConnectOptions.from_url(url),
        ConnectOptions.from_url(url, user="ada", password="x"),
    ):
        with pytest.raises(BusConnectError) as caught:
            await Bus(options, name="stranger").connect()
        assert caught.value.needs_credentials and "needs credentials" in str(caught.value)

    # The owner invites bob, who may take part but not approve or abort.
    invite = await Proc.start("invite", run_id, "--name", "bob", "--runs-dir", str(runs))
    procs.append(invite)
    assert await invite.finish() == 0, invite.transcript
    bob_creds = creds / "human-bob.json"
    assert str(bob_creds) in invite.transcript.replace("\n", "")

    log = Log()
    async with (
        Bus(login(url, bob_creds), name="bob", reports=False) as bob,
        Bus(login(url, creds / "coder-0.json"), name="coder", reports=False) as coder,
    ):
        log.follow(bob, run_id)
        try:
            asked = await log.until(lambda: log.of("question"))
            question = asked[0]
            assert isinstance(question, Question) and question.kind == "plan_approval"

            # bob may not approve, nor abort: each is refused with a notice, nothing changes.
            approve = Answer(question_id=question.question_id, approved=True, by="bob")
            await bob.send(run_id, "human/bob", approve)
            await log.until(lambda: log.of("chat", lambda c: "bob may not decide" in c.text))
            await bob.send(run_id, "human/bob", _abort("bob"))
            await log.until(lambda: log.of("chat", lambda c: "bob may not abort" in c.text))

            # bob speaking as ada on his own subject, and as ada on hers: dead letter / refused.
            ada_answer = Answer(question_id=question.question_id, approved=True, by="ada")
            await bob.send(run_id, "human/bob", ada_answer)
            await bob.publish_raw(
                subjects.subject(run_id, Channel.HUMAN_ANSWER, "human-ada"),
                encode(Envelope.new(run_id, "human/ada", ada_answer)),
            )
            await refused(bob, lambda s: s.endswith(".human.answer.human-ada"))

            # A compromised coder: an empty plan on the chat subject, a spoofed person's
            # answer, an envelope of another run, a final, and the manager's queue.
            chat = subjects.subject(run_id, Channel.CHAT)
            empty_plan = Envelope.new(run_id, "planner/0", Plan(revision=1, tasks=[]))
            await coder.publish_raw(chat, encode(empty_plan))
            mallory = Answer(question_id=question.question_id, approved=True, by="ada")
            await coder.publish_raw(  # the answer subject the coder may use (for defaults)
                subjects.subject(run_id, Channel.HUMAN_ANSWER, "coder-0"),
                encode(Envelope.new(run_id, "human/mallory", mallory)),
            )
            other_run = Envelope.new("another-run", "coder/0", Chat(text="hi"))
            await coder.publish_raw(chat, encode(other_run))
            await coder.send(run_id, "manager/0", Final(status="succeeded", answer="spoofed"))
            manager_queue = subjects.consumer_name(run_id, "manager")
            pull = await coder.js.pull_subscribe_bind(manager_queue, stream=runlog.STREAM_NAME)
            with pytest.raises((nats.errors.TimeoutError, nats.errors.Error)):
                await pull.fetch(1, timeout=3)
            await refused(coder, lambda s: "msg.next" in s and manager_queue.lower() in s)
            assert any(s.endswith(".final") for _, s in coder.refusals)
            await log.until(lambda: len(log.of("dead_letter")) >= 4)

            # ada, with her own credential, still approves and answers: the run succeeds.
            ada = await Proc.start("attach", run_id, "--runs-dir", str(runs), "--name", "ada")
            procs.append(ada)
            await ada.expect(r"waiting: #1 plan approval from manager/0")
            await ada.send("approve")
            await ada.expect(r"Eratosthenes or Atkin\?")
            await ada.send("answer Atkin")
            assert await run.finish(timeout=120) == 0, run.transcript
        finally:
            log.stop()

    records = read_jsonl(run_dir / "log.jsonl").records
    envs = [r.envelope for r in records if r.envelope is not None]
    final = [e.payload for e in envs if isinstance(e.payload, Final)]
    assert len(final) == 1 and final[0].status == "succeeded"
    assert "Atkin" in (final[0].answer or "")
    plans = [e.payload for e in envs if isinstance(e.payload, Plan)]
    assert [len(p.tasks) for p in plans] == [2]
    answers = [(e.sender, e.payload.by) for e in envs if isinstance(e.payload, Answer)]
    assert ("human/ada", "ada") in answers and ("human/bob", "ada") not in answers
    assert all(
        by == sender.partition("/")[2] for sender, by in answers if sender.startswith("human/")
    )
    letters = [e.payload for e in envs if isinstance(e.payload, DeadLetter)]
    errors = sorted(letter.error for letter in letters)
    assert len(letters) == 4, errors  # each refused once, not once per role
    assert any("may not speak as 'ada'" in e for e in errors)  # bob as ada
    assert any("a plan belongs on" in e for e in errors)
    assert any("human/mallory" in e or "belongs on" in e for e in errors)
    assert any("another run" in e for e in errors)


def _abort(by: str) -> Any:
    from bus.payloads import Control

    return Control(action="abort", reason="mine now", by=by)


async def test_attaching_without_a_credential_says_which_is_needed(tmp_path: Path) -> None:
    from bus import EmbeddedServer
    from society.credentials import OWNER, RunCredentials

    creds = RunCredentials(tmp_path / "r1", "r1")
    creds.issue(OWNER)
    async with EmbeddedServer(tmp_path / "nats", config_file=creds.write_config()) as server:
        attach = await Proc.start("attach", "r1", "--nats", server.url, "--name", "eve")
        code = await attach.finish(timeout=60)
    assert code == 3, attach.transcript
    assert f"the NATS server at {server.url} needs credentials" in attach.transcript
    assert "no credentials were given" in attach.transcript and "--creds FILE" in attach.transcript
    assert "Traceback" not in attach.transcript
