"""Re-running recorded runs offline: identical on every example, the first divergence
found where a recorded answer was edited, a fork that continues live, and a bundle that
re-runs elsewhere."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from rich.console import Console

from bus import Bus, Envelope, subjects
from bus.payloads import Answer, ExecRequest, Goal, Presence, Question, Usage
from bus.subjects import Channel
from society.replay.bundle import make_bundle
from society.replay.rerun import fork, rerun
from society.replay.source import read_local
from society.run.runner import RunOptions, RunOutcome
from society.scenario import load_scenario

from ..conftest import ROOT, RunYaml, payloads, records

pytestmark = [pytest.mark.docker, pytest.mark.nats, pytest.mark.timeout(120)]

EXAMPLES = sorted(  # tools.yaml needs its page served: tests/society/test_tools.py re-runs it
    [p for p in (ROOT / "scenarios").glob("*.yaml") if p.stem != "tools"]
    + [p for p in (ROOT / "scenarios" / "failures").glob("*.yaml")]
)


def _options(nats_url: str, tmp_path: Path) -> RunOptions:
    return RunOptions(nats_url=nats_url, runs_dir=tmp_path / "reruns", live=False)


def _quiet() -> Console:
    return Console(stderr=True, width=120)


def _example(path: Path, tmp_path: Path) -> Path:
    """The example itself; one that waits for a person gets 1 s instead of minutes."""
    text = path.read_text()
    if "timeout_s: 120" not in text:
        return path
    copy = tmp_path / "example" / path.name
    copy.parent.mkdir()
    copy.write_text(text.replace("timeout_s: 120", "timeout_s: 1"))
    (copy.parent / "corpus").symlink_to(path.parent / "corpus")  # its documents beside it
    return copy


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
async def test_every_example_reruns_identical(
    run_yaml: RunYaml, nats_url: str, tmp_path: Path, path: Path
) -> None:
    original = await run_yaml(_example(path, tmp_path))
    assert original.log_path is not None
    report = await rerun(
        read_local(original.log_path, scratch=tmp_path), _options(nats_url, tmp_path), _quiet()
    )
    assert report.divergence is None, report.divergence
    assert report.outcome.run_id != original.run_id
    assert report.outcome.final is not None and original.final is not None
    assert report.outcome.final.status == original.final.status


def _edit_first_code_answer(log: Path, out: Path) -> int:
    """Change the coder's first recorded program; returns the number of the first
    message that must then differ (the execution request that runs the edited code)."""
    lines = log.read_text().splitlines()
    edited_at = None
    for i, line in enumerate(lines):
        data = json.loads(line)
        payload = data["envelope"]["payload"]
        answer = payload.get("answer") or ""
        sender = data["envelope"]["sender"]
        if payload["type"] == "usage" and sender.startswith("coder") and "```python" in answer:
            payload["answer"] = answer.replace("import json", "import json  # edited")
            lines[i] = json.dumps(data)
            edited_at = i
            break
    assert edited_at is not None
    out.write_text("\n".join(lines) + "\n")
    return next(
        n
        for n, line in enumerate(lines, start=1)
        if n > edited_at and json.loads(line)["envelope"]["payload"]["type"] == "exec_request"
    )


async def test_an_edited_answer_is_the_first_divergence(
    run_yaml: RunYaml, nats_url: str, tmp_path: Path
) -> None:
    original = await run_yaml(ROOT / "scenarios" / "code_retry.yaml")
    assert original.log_path is not None
    edited = tmp_path / "edited.jsonl"
    expected = _edit_first_code_answer(original.log_path, edited)
    report = await rerun(read_local(edited, scratch=tmp_path), _options(nats_url, tmp_path))
    div = report.divergence
    assert div is not None and div.recorded is not None and div.rerun is not None
    assert div.recorded.number == expected
    assert div.fields == ["payload.code"]
    old, new = div.recorded.envelope.payload, div.rerun.envelope.payload
    assert isinstance(old, ExecRequest) and isinstance(new, ExecRequest)
    assert "# edited" in new.code and "# edited" not in old.code


async def test_a_fork_continues_live_on_a_changed_scenario(
    run_yaml: RunYaml, nats_url: str, shared_sandbox: object, tmp_path: Path
) -> None:
    original = await run_yaml(ROOT / "scenarios" / "quickstart.yaml")
    recorded = records(original)
    # Fork once the first branch's result is in: the join task has not been assigned yet.
    at = next(
        n
        for n, r in enumerate(recorded, start=1)
        if r.envelope is not None and r.envelope.payload.type == "result"
    )
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    changed_path = tmp_path / "changed" / "quickstart.yaml"
    changed_path.parent.mkdir()
    changed_path.write_text(text.replace("as expected for small limits", "a forked answer"))
    (changed_path.parent / "corpus").symlink_to(ROOT / "scenarios" / "corpus")
    changed = load_scenario(changed_path)

    import contextlib

    @contextlib.asynccontextmanager
    async def sandbox_factory(scenario: object, run_id: str):  # type: ignore[no-untyped-def]
        yield shared_sandbox

    options = RunOptions(
        nats_url=nats_url, runs_dir=tmp_path / "forks", live=False, sandbox_factory=sandbox_factory
    )
    outcome = await fork(read_local(original.log_path, scratch=tmp_path), at, options, changed)  # type: ignore[arg-type]
    assert outcome.exit_code == 0, outcome.final
    assert outcome.final is not None and "a forked answer" in (outcome.final.answer or "")
    goal = next(p for p in payloads(outcome, "goal") if isinstance(p, Goal))
    assert goal.origin == f"{original.run_id}@{at}"
    # Before the fork point the fork made the same model calls, answered from the log.
    old_calls = [p.fingerprint for p in payloads(original, "usage") if p.kind == "model"]
    new_calls = [p.fingerprint for p in payloads(outcome, "usage") if p.kind == "model"]
    replayed = sum(
        1
        for r in recorded[:at]
        if r.envelope
        and isinstance(r.envelope.payload, Usage)
        and r.envelope.payload.kind == "model"
    )
    assert sorted(new_calls[:replayed]) == sorted(old_calls[:replayed])


async def test_a_bundle_reruns_on_its_own(run_yaml: RunYaml, nats_url: str, tmp_path: Path) -> None:
    original: RunOutcome = await run_yaml(ROOT / "scenarios" / "quickstart.yaml")
    bundle = make_bundle(original.run_dir, tmp_path / "moved" / "qs.tar.gz")
    shutil.rmtree(original.run_dir)
    shutil.rmtree(tmp_path / "corpus", ignore_errors=True)
    source = read_local(bundle, scratch=tmp_path / "unpacked")
    assert source.inputs_dir is not None and (source.inputs_dir / "corpus" / "primes.md").is_file()
    report = await rerun(source, _options(nats_url, tmp_path), _quiet())
    assert report.divergence is None, report.divergence


async def test_what_people_said_is_said_again(
    run_yaml: RunYaml, nats_url: str, tmp_path: Path
) -> None:
    run_id = f"people-{uuid.uuid4().hex[:8]}"
    async with Bus(nats_url, name="alice") as alice:

        async def answer(env: Envelope) -> None:
            q = env.payload
            assert isinstance(q, Question)
            reply = (
                Answer(question_id=q.question_id, approved=True, by="alice")
                if q.kind == "plan_approval"
                else Answer(question_id=q.question_id, text="Atkin, please", by="alice")
            )
            await alice.send(run_id, "human/alice", reply, parent_id=env.id, task_id=env.task_id)

        await alice.subscribe(subjects.subject(run_id, Channel.HUMAN_ASK), answer)
        await alice.flush()
        await alice.send(run_id, "human/alice", Presence(status="up", role="human"))
        original = await run_yaml(ROOT / "scenarios" / "human.yaml", run_id=run_id)
    assert original.final is not None and "Atkin" in (original.final.answer or "")
    answers = [a for a in payloads(original, "answer") if isinstance(a, Answer)]
    assert [a.by for a in answers] == ["alice", "alice"]
    assert original.log_path is not None
    report = await rerun(
        read_local(original.log_path, scratch=tmp_path), _options(nats_url, tmp_path), _quiet()
    )
    assert report.divergence is None, report.divergence
    assert report.outcome.final is not None and "Atkin" in (report.outcome.final.answer or "")
