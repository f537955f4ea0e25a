"""The society beyond one process: real `society worker` processes over real nats-servers.

A coder worker killed while it holds a task loses nothing; a nats-server restarted in
the middle of a run loses nothing; per-role users cannot publish what is not theirs; a
3-node cluster runs a society whose roles sit on different nodes.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bus import Bus, BusPermissionError, EmbeddedServer, Envelope, LocalCluster, subjects
from bus.payloads import ExecRequest, Final, Goal, Plan, TaskResult
from bus.permissions import roles, server_config
from bus.subjects import Channel
from sandbox import DEFAULT_IMAGE, gc
from society.connect import connect_options
from society.logs import configure_logging
from society.run.runner import RunOptions, RunOutcome, run_scenario
from society.run.worker import WorkerHost, WorkerOptions
from society.scenario import load_scenario
from tests.conftest import docker_ready, require

from .conftest import ROOT, RunYaml, payloads, records
from .workers import Watcher, workers

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(90)]


@pytest.fixture(autouse=True)
def _docker() -> None:
    ok, why = docker_ready(DEFAULT_IMAGE)
    require(ok, why)


@pytest.fixture(autouse=True)
def _logs_to_this_stderr() -> None:
    """Logs go to the stderr of now (a CliRunner test may have left a closed one)."""
    configure_logging("console", "warning")


def run_external(
    text: str | Path, url: str, run_id: str, tmp_path: Path, **options: Any
) -> asyncio.Task[RunOutcome]:
    """Start a run with only the manager here (the other roles are worker processes)."""
    path = text if isinstance(text, Path) else tmp_path / f"{run_id}.yaml"
    if isinstance(text, str):
        path.write_text(text)
        corpus = tmp_path / "corpus"  # the documents an inline scenario's researcher reads
        if not corpus.exists():
            corpus.symlink_to(ROOT / "scenarios" / "corpus")
    scenario = load_scenario(path)
    opts = RunOptions(
        nats_url=url,
        runs_dir=tmp_path / "runs",
        memory_dir=tmp_path / "memory",
        run_id=run_id,
        workers="external",
        **options,
    )
    console = Console(stderr=True, width=120)
    return asyncio.ensure_future(run_scenario(scenario, opts, console))


def senders(outcome: RunOutcome, kind: str) -> list[str]:
    """Who sent each message of one kind, in log order."""
    return [
        r.envelope.sender
        for r in records(outcome)
        if r.envelope is not None and r.envelope.payload.type == kind
    ]


@pytest.fixture
async def sandbox_gc(run_id: str) -> AsyncIterator[None]:
    """Remove the run's sandbox containers (a killed worker cannot)."""
    yield
    await gc(run_id)


SLOW = """
name: slow
goal: {text: Count to three slowly.}
models: {default: {provider: scripted}}
delivery: {ack_wait_s: 2}
presence: {heartbeat_s: 0.5}
sandbox: {timeout_s: 20, pool_size: 1}
script:  # the live path: the first plan is one coding task for the goal as stated
  coder:
    - instructions: without seeing it  # the verifier's statement, before any program
      answer: {kind: text}
    - match: independent check of a teammate  # the second candidate, its own computation
      answer: "```python\\nwords = ['one', 'two', 'three']\\nprint(words[-1])\\n```"
    - match: Your task  # a program (the verifier's prompt names only the goal)
      answer: "```python\\nimport time\\ntime.sleep(1.5)\\nprint('three')\\n```"
"""


@pytest.mark.usefixtures("sandbox_gc")
async def test_a_coder_killed_mid_task_loses_nothing(
    nats_url: str, run_id: str, tmp_path: Path
) -> None:
    specs = [("planner", "p", nats_url), ("coder", "a", nats_url), ("coder", "b", nats_url)]
    async with (
        workers(specs, run_id=run_id, runs_dir=tmp_path / "w") as procs,
        Bus(nats_url, name="watch") as bus,
    ):
        watch = await Watcher(bus, run_id).start()
        run = run_external(SLOW, nats_url, run_id, tmp_path)
        first = await watch.first(lambda e: isinstance(e.payload, ExecRequest), unless=run)
        holder = procs[first.instance]
        holder.kill()  # SIGKILL while its code runs in the sandbox
        await holder.proc.wait()
        outcome = await asyncio.wait_for(run, 60)

    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert outcome.final.answer == "three"
    survivor = next(w for w in procs.values() if w.role == "coder" and w is not holder)
    [assignment] = [
        r.envelope for r in records(outcome) if r.envelope and r.envelope.payload.type == "task"
    ]
    results = [
        r.envelope for r in records(outcome) if r.envelope and r.envelope.payload.type == "result"
    ]
    assert len(results) == 1  # the killed worker said nothing; the survivor's result, once
    assert results[0].sender == survivor.sender
    assert results[0].parent_id == assignment.id  # the same assignment, redelivered
    assert isinstance(results[0].payload, TaskResult) and results[0].payload.status == "done"
    # the holder's first candidate, then the survivor's whole task: two candidates and the
    # verifier's check over them
    assert senders(outcome, "exec_request") == [holder.sender] + [survivor.sender] * 3
    assert holder.proc.returncode == -9


TWO_STEPS = """
name: two_steps
goal: {text: "Compute a number, then explain it."}
models: {default: {provider: scripted}}
presence: {heartbeat_s: 0.5}
sandbox: {timeout_s: 20, pool_size: 1}
roles:
  # A coder step, then a researcher step after it (the team's plan, no goal check task). The
  # server is down from the coder's program until it stores its result: one program, as a
  # second one would first ask the runner's budget over the bus. The researcher's answer,
  # which cites its document, is the run's checked answer.
  planner: {one_task_first: false}
  manager: {goal_check: false}
  coder: {cross_check: false}
  researcher: {corpus: [corpus]}
script:
  planner:
    - answer:
        success_criteria: [explained]
        tasks:
          - {id: compute, role: coder, description: Compute six times seven slowly., outputs: [product]}
          - {id: explain, role: researcher, description: Explain the product as a natural number with its divisors., inputs: [product], outputs: [answer], depends_on: [compute]}
  coder:
    - match: six times seven
      answer: "```python\\nimport time\\ntime.sleep(1.0)\\nprint(6 * 7)\\n```"
  researcher:
    - match: Explain
      answer: {outputs: {answer: "42 is six times seven"}, sources: [primes.md]}
"""


@pytest.mark.usefixtures("sandbox_gc")
async def test_a_nats_server_restarted_mid_run_loses_nothing(run_id: str, tmp_path: Path) -> None:
    async with EmbeddedServer(tmp_path / "nats") as server:
        url = server.url
        specs = [("planner", "p", url), ("researcher", "r", url), ("coder", "c", url)]
        async with (
            workers(specs, run_id=run_id, runs_dir=tmp_path / "w") as procs,
            Bus(url, name="watch") as bus,
        ):
            watch = await Watcher(bus, run_id).start()
            run = run_external(TWO_STEPS, url, run_id, tmp_path)
            await watch.first(lambda e: isinstance(e.payload, ExecRequest), unless=run)
            old_pid = server.pid
            await server.stop()  # the coder is in the middle of its task
            # Down until the coder has finished and is trying to store its result.
            await procs["c"].said("not stored yet")
            await server.start()  # same port, same store folder
            assert server.pid != old_pid
            outcome = await asyncio.wait_for(run, 60)

    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert outcome.final.answer == "42 is six times seven"
    kinds = [r.envelope.payload.type for r in records(outcome) if r.envelope]
    for kind in ("goal", "plan_request", "plan", "plan_decision", "exec_request", "final"):
        assert kind in kinds, kind
    assignments = payloads(outcome, "task")
    assert sorted(a.task.id for a in assignments) == ["compute", "explain"]  # each once
    results = payloads(outcome, "result")
    assert sorted((r.task_id, r.status) for r in results) == [
        ("compute", "done"),
        ("explain", "done"),
    ]
    assert [e.exit_code for e in payloads(outcome, "exec_result")] == [0]
    seqs = [r.seq for r in records(outcome)]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


@pytest.fixture
async def secured(tmp_path: Path) -> AsyncIterator[tuple[EmbeddedServer, dict[str, str]]]:
    """A nats-server with one user per role (config from bus.permissions), and passwords."""
    passwords = {role: secrets.token_urlsafe(12) for role in roles()}
    config = tmp_path / "users.conf"
    config.write_text(server_config(passwords))
    async with EmbeddedServer(tmp_path / "nats", config_file=config) as server:
        yield server, passwords


def as_role(server: EmbeddedServer, passwords: dict[str, str], role: str) -> str:
    """The server's URL with ``role``'s credentials."""
    return f"nats://{role}:{passwords[role]}@{server.host}:{server.port}"


@pytest.mark.usefixtures("sandbox_gc")
async def test_a_coder_cannot_publish_a_plan_or_a_final(
    secured: tuple[EmbeddedServer, dict[str, str]], run_id: str, tmp_path: Path
) -> None:
    server, passwords = secured
    coder_url = as_role(server, passwords, "coder")
    specs = [("planner", "p", as_role(server, passwords, "planner")), ("coder", "c", coder_url)]
    async with (
        workers(specs, run_id=run_id, runs_dir=tmp_path / "w"),
        Bus(connect_options(as_role(server, passwords, "manager"), role="manager")) as watcher,
        Bus(connect_options(coder_url, role="coder"), name="rogue-coder", durable=True) as rogue,
    ):
        watch = await Watcher(watcher, run_id).start()
        run = run_external(SLOW, as_role(server, passwords, "manager"), run_id, tmp_path)
        await watch.first(lambda e: isinstance(e.payload, ExecRequest), unless=run)
        forged_plan = Plan(revision=1, success_criteria=["x"], tasks=[])
        with pytest.raises(BusPermissionError, match=r"NATS refused publishing to .*\.plan"):
            await rogue.send(run_id, "coder/c", forged_plan)
        forged_final = Final(status="succeeded", answer="forged")
        with pytest.raises(BusPermissionError, match=r"NATS refused publishing to .*\.final"):
            await rogue.send(run_id, "coder/c", forged_final)
        # A plain (fire-and-forget) publish is refused too, and recorded and logged.
        final_subject = subjects.subject(run_id, Channel.FINAL)
        await rogue.publish_raw(
            final_subject, Envelope.new(run_id, "coder/c", forged_final).model_dump_json().encode()
        )
        await rogue.flush()
        assert ("publishing to", final_subject) in rogue.refusals
        outcome = await asyncio.wait_for(run, 60)

    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert outcome.final.answer == "three"  # the run is unaffected
    assert senders(outcome, "final") == ["manager/0"]
    assert senders(outcome, "plan") == ["planner/p"]
    assert senders(outcome, "result") == ["coder/c"]  # its own subjects work


def for_two_coders(tmp_path: Path) -> Path:
    """The quickstart beside its documents. Each coder worker has its own copy of the script,
    so every answer is matched by its task's own words (``Your task (count)``): a bare
    ``sieve`` would also match the compare task, whose documents mention the sieve."""
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    path = tmp_path / "quickstart.yaml"
    path.write_text(text)
    (tmp_path / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    return path


@pytest.mark.usefixtures("sandbox_gc")
async def test_workers_on_three_cluster_nodes_run_a_society_together(
    run_id: str, tmp_path: Path
) -> None:
    passwords = {role: secrets.token_urlsafe(12) for role in roles()}
    config = tmp_path / "users.conf"
    config.write_text(server_config(passwords))  # the cluster runs with per-role users too
    async with LocalCluster(tmp_path / "cluster", 3, config_file=config) as cluster:
        n1, n2, n3 = cluster.nodes

        def on(node: EmbeddedServer, role: str) -> str:
            return f"nats://{role}:{passwords[role]}@{node.host}:{node.port}"

        specs = [
            ("planner", "n2-planner", on(n2, "planner")),
            ("researcher", "n3-researcher", on(n3, "researcher")),
            ("coder", "n1-coder", on(n1, "coder")),
            ("coder", "n3-coder", on(n3, "coder")),
            ("critic", "n2-critic", on(n2, "critic")),
            ("reflector", "n3-reflector", on(n3, "reflector")),
        ]
        quickstart = for_two_coders(tmp_path)
        async with workers(specs, run_id=run_id, runs_dir=tmp_path / "w") as procs:
            for w in procs.values():  # each is attached to the node it was given
                assert f":{w.url.rsplit(':', 1)[1]}" in await w.said("worker ready")
            run = run_external(quickstart, on(n1, "manager"), run_id, tmp_path, stream_replicas=3)
            outcome = await asyncio.wait_for(run, 75)
            async with Bus(connect_options(on(n2, "manager"), role="manager")) as bus:
                info = await bus.js.stream_info("SOCIETY")

    assert info.config.num_replicas == 3  # the run log is replicated on every node
    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None
    assert "1229 primes below 10000" in (outcome.final.answer or "")
    assert senders(outcome, "plan") == ["planner/n2-planner"]
    results = dict(
        zip(
            [r.task_id for r in payloads(outcome, "result")],
            senders(outcome, "result"),
            strict=True,
        )
    )
    assert results["theory"] == "researcher/n3-researcher"
    assert {results["count"], results["compare"]} <= {"coder/n1-coder", "coder/n3-coder"}
    assert senders(outcome, "final") == ["manager/0"]
    # The coder wrote report.md on its side; the manager's run folder has it from the log.
    report = outcome.run_dir / "artifacts" / "compare" / "report.md"
    assert "1229" in report.read_text()


NO_CODER = """
name: no_coder
goal: {text: Write some code.}
models: {default: {provider: scripted}}
presence: {heartbeat_s: 0.2, wait_s: 1}
script:
  planner:
    - answer: {success_criteria: [coded], tasks: [{id: code, role: coder, description: Write it., outputs: [answer]}]}
"""


async def test_the_manager_fails_clearly_when_no_worker_of_a_role_comes(
    nats_url: str, run_id: str, tmp_path: Path
) -> None:
    async with Bus(nats_url, name="watch") as bus:
        watch = await Watcher(bus, run_id).start()
        run = run_external(NO_CODER, nats_url, run_id, tmp_path)
        await watch.first(lambda e: isinstance(e.payload, Goal), unless=run)
        # A planner that comes after the goal finds the run in the log and plans it.
        options = WorkerOptions(
            "planner", connect_options(nats_url, role="planner"), runs_dir=tmp_path / "w"
        )
        async with WorkerHost(options):
            outcome = await asyncio.wait_for(run, 30)

    assert outcome.final is not None
    assert outcome.final.status == "failed"
    assert "no live coder worker for 1s" in outcome.final.reason
    assert "society worker --role coder" in outcome.final.reason
    assert senders(outcome, "plan") == [f"planner/{options.instance}"]


JOIN = """
name: join
goal: {text: Answer two questions and join the answers.}
models: {default: {provider: scripted}}
roles:  # the team's plan of three research tasks; the point is the join, not a goal check
  planner: {one_task_first: false}
  manager: {goal_check: false}
  researcher: {concurrency: 2, corpus: [corpus]}
script:
  planner:
    - answer:
        success_criteria: [joined]
        tasks:
          - {id: quick, role: researcher, description: "Quick question about primes?", outputs: [q]}
          - {id: slow, role: researcher, description: "Slow question about primes?", outputs: [s]}
          - {id: join, role: researcher, description: Join both answers about primes., inputs: [q, s], outputs: [answer], depends_on: [quick, slow]}
  researcher:
    - {match: Quick question, answer: {outputs: {q: quick}, sources: [primes.md]}}
    - {match: Slow question, delay_s: 1.0, answer: {outputs: {s: slow}, sources: [primes.md]}}
    - {match: Join both, answer: {outputs: {answer: quick and slow}, sources: [primes.md]}}
"""


async def test_a_result_delivered_twice_is_applied_once(
    run_yaml: RunYaml, nats_url: str, run_id: str
) -> None:
    async with Bus(nats_url, name="duplicator", durable=True) as bus:
        watch = await Watcher(bus, run_id).start()
        run = asyncio.ensure_future(run_yaml(JOIN, run_id=run_id))
        first = await watch.first(
            lambda e: isinstance(e.payload, TaskResult) and e.payload.task_id == "quick", unless=run
        )
        # The same result again (as from a worker that finished a redelivered task).
        again = Envelope.new(
            run_id, first.sender, first.payload, parent_id=first.parent_id, task_id=first.task_id
        )
        await bus.publish(again)
        outcome = await asyncio.wait_for(run, 30)

    assert outcome.exit_code == 0, outcome.final
    results = [(r.task_id, r.status) for r in payloads(outcome, "result")]
    assert results.count(("quick", "done")) == 2  # both are in the log ...
    kinds = [(r.envelope.payload.type, r.envelope.task_id) for r in records(outcome) if r.envelope]
    # ... but counted once: the join waited for the slow answer instead of starting early.
    assert kinds.index(("task", "join")) > kinds.index(("result", "slow"))
    [join] = [a for a in payloads(outcome, "task") if a.task.id == "join"]
    assert join.inputs == {"q": "quick", "s": "slow"} and join.goal_values == []
