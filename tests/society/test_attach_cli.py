"""``society attach`` and ``society run --human`` as real processes: finding the run from its
folder, abort from an attached person, and clear errors for a wrong run or a dead server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from bus.logfile import read_jsonl
from bus.payloads import Answer, Control, Final
from bus.server import free_port
from tests.containers import containers_left
from tests.proc import alive

from .humans import SLOW, Proc

pytestmark = [pytest.mark.nats, pytest.mark.timeout(120)]


def logged(run_dir: Path, kind: str) -> list[object]:
    read = read_jsonl(run_dir / "log.jsonl")
    return [
        r.envelope.payload for r in read.records if r.envelope and r.envelope.payload.type == kind
    ]


def aborted_scenario() -> str:
    """`SLOW` with the settings this test needs stated: the researcher's step first (its
    results are what an abort keeps), so the team's plan, not one coding task, with the
    researcher offered though it has nothing to read; no goal check (one more coder task
    would contend for the one sandbox). The coder takes the live path: the verifier states
    the kind of value first, then the first candidate sleeps."""
    doc = yaml.safe_load(SLOW)
    doc["roles"] = {
        "planner": {"one_task_first": False, "offer_researcher": True},
        "manager": {"goal_check": False},
    }
    statement = {"instructions": "without seeing it", "answer": {"kind": "count"}}
    doc["script"]["coder"].insert(0, statement)
    return yaml.safe_dump(doc, sort_keys=False)


async def attach_fails(*args: str) -> tuple[int, str, float]:
    started = time.monotonic()
    proc = await Proc.start("attach", *args, name="attach")
    code = await proc.finish(timeout=20)
    return code, proc.transcript, time.monotonic() - started


async def test_attach_to_an_unknown_run_says_so(nats_url: str) -> None:
    code, out, _ = await attach_fails("no-such-run", "--nats", nats_url)
    assert code == 2
    assert f"error: no run 'no-such-run' on the server at {nats_url} (check the run id)" in out
    assert "Traceback" not in out


async def test_attach_to_a_run_folder_that_does_not_exist_says_where_it_looked(
    tmp_path: Path,
) -> None:
    code, out, _ = await attach_fails("no-such-run", "--runs-dir", str(tmp_path))
    assert code == 2
    assert f"error: no run 'no-such-run' in {tmp_path}: give the runs folder with --runs-dir" in out
    assert "Traceback" not in out


async def test_attach_to_a_server_that_is_down_fails_fast(tmp_path: Path) -> None:
    url = f"nats://127.0.0.1:{free_port()}"
    code, out, took = await attach_fails("some-run", "--nats", url, "--connect-timeout", "2")
    assert code == 3
    assert f"error: cannot reach NATS at {url}" in out
    assert "is the server up? check --nats" in out
    assert "Traceback" not in out
    assert took < 15
    # a run folder whose server is gone: the run has ended
    (tmp_path / "old-run").mkdir()
    (tmp_path / "old-run" / "server.json").write_text(json.dumps({"url": url}))
    (tmp_path / "old-run" / "log.jsonl").write_text("")
    code, out, _ = await attach_fails("old-run", "--runs-dir", str(tmp_path))
    assert code == 3
    assert f"error: run 'old-run': its server at {url} does not answer" in out
    assert "the run has probably ended; its log is" in out
    assert "Traceback" not in out


@pytest.mark.docker
@pytest.mark.timeout(300)  # the run, then up to 150 s for Docker's removals
async def test_abort_from_an_attached_person_ends_the_run_cleanly(
    tmp_path: Path, procs: list[Proc]
) -> None:
    scenario = tmp_path / "aborted.yaml"
    scenario.write_text(aborted_scenario())
    runs, run_id = tmp_path / "runs", f"aborted-{time.time_ns()}"
    procs.append(
        await Proc.start(
            "run", str(scenario), "--runs-dir", str(runs), "--run-id", run_id, name="run"
        )
    )
    run = procs[0]
    await run.expect(rf"take part: society attach {run_id} --runs-dir")
    # found through runs/<run>/server.json, no --nats needed
    procs.append(await Proc.start("attach", run_id, "--runs-dir", str(runs), "--name", "erin"))
    erin = procs[1]
    await erin.expect(r"coder/0 +runs code \(2 lines\) in the sandbox")
    server = json.loads((runs / run_id / "server.json").read_text())
    assert alive(server["pid"])
    aborted_at = time.monotonic()
    await erin.send("abort enough of this")
    await erin.expect(r"final: aborted: aborted by erin: enough of this")
    await erin.expect(r'results so far: \{"meaning": "n! is the product')
    assert await erin.finish() == 0, erin.transcript
    assert await run.finish() == 1, run.transcript
    assert time.monotonic() - aborted_at < 30  # not the 100 s the code would have slept
    assert "aborted · run" in run.transcript
    assert "results so far" in run.transcript

    final = logged(runs / run_id, "final")[0]
    assert isinstance(final, Final)
    assert (final.status, final.reason) == ("aborted", "aborted by erin: enough of this")
    assert final.outputs == {"meaning": "n! is the product of the whole numbers from 1 to n"}
    controls = [c for c in logged(runs / run_id, "control") if isinstance(c, Control)]
    assert ("abort", "erin") in [(c.action, c.by) for c in controls]
    assert not alive(server["pid"])  # the run's nats-server is gone
    assert containers_left(run_id) == []


APPROVE_HERE = """
name: approve_here
goal: {text: Explain what a prime number is.}
models: {default: {provider: scripted}}
roles:
  human: {plan_approval: true, timeout_s: 100}
  planner: {one_task_first: false}  # the plan to approve is the researcher's step
  researcher: {corpus: [primes.md]}
script:
  planner:
    - answer: {success_criteria: [a prime is defined], tasks: [{id: define, role: researcher, description: Define a prime number., outputs: [answer]}]}
  researcher:
    - answer: {outputs: {answer: "A whole number above 1 divisible only by 1 and itself."}, sources: [primes.md]}
"""
PRIMES = "A prime number is a whole number above 1 whose only divisors are 1 and itself.\n"
"""The document the researcher reads and cites (its answer is checked by its sources)."""


@pytest.mark.docker
async def test_run_with_human_makes_this_terminal_the_human(
    tmp_path: Path, procs: list[Proc]
) -> None:
    scenario = tmp_path / "approve_here.yaml"
    scenario.write_text(APPROVE_HERE)
    (tmp_path / "primes.md").write_text(PRIMES)
    runs, run_id = tmp_path / "runs", f"here-{time.time_ns()}"
    procs.append(
        await Proc.start(
            "run",
            str(scenario),
            "--runs-dir",
            str(runs),
            "--run-id",
            run_id,
            "--human",
            "--name",
            "pat",
            name="run",
        )
    )
    run = procs[0]
    await run.expect(r"live · you are pat")
    await run.expect(r"\? #1 \[manager-0-1\] plan approval for the human")
    await run.send("approve")
    await run.expect(r"pat answers #1 \[manager-0-1\]: approve")
    assert await run.finish() == 0, run.transcript
    answers = [a for a in logged(runs / run_id, "answer") if isinstance(a, Answer)]
    assert [(a.by, a.approved) for a in answers] == [("pat", True)]
