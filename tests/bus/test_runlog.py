"""The JetStream run log, its JSONL export and the tolerant reader."""

from __future__ import annotations

import json
from pathlib import Path

import nats
import pytest

from bus import Bus, BusConnectError, Envelope, runlog
from bus.logfile import LogRecord, read_jsonl, write_jsonl

from .samples import SAMPLES, sender_for


async def test_export_and_read_back_round_trip_exactly(
    nats_url: str, run_id: str, tmp_path: Path
) -> None:
    async with Bus(nats_url, name="w") as bus:
        await runlog.ensure_stream(bus)
        sent = [Envelope.new(run_id, sender_for(p), p, parent_id="x") for p in SAMPLES]
        for env in sent:
            await bus.publish(env)
        stored = await runlog.fetch_run(bus, run_id)
        while len(stored) < len(sent):  # core publishes: the stream has them before the raw one
            stored = await runlog.fetch_run(bus, run_id)
        raw = await nats.connect(nats_url)
        await raw.publish(f"society.{run_id}.chat", b"not json at all")
        await raw.flush()
        await raw.close()
        await bus.flush()
        path = tmp_path / "log.jsonl"
        # the dead letter from our own subscriber is not produced here: nobody subscribed
        count, _, _ = await runlog.export_jsonl(bus, run_id, path)
    assert count == len(SAMPLES) + 1
    read = read_jsonl(path)
    assert read.problems == []
    assert [r.envelope for r in read.records[:-1]] == sent
    assert read.records[-1].envelope is None and read.records[-1].raw == "not json at all"
    again = tmp_path / "again.jsonl"
    write_jsonl(read.records, again)
    assert again.read_bytes() == path.read_bytes()


async def test_the_exported_log_keeps_arrivals_and_goodbyes_but_no_heartbeats(
    nats_url: str, run_id: str, tmp_path: Path
) -> None:
    from bus.payloads import Presence

    statuses = ["up", "heartbeat", "heartbeat", "heartbeat", "down"]
    async with Bus(nats_url, name="w") as bus:
        await runlog.ensure_stream(bus)
        for status in statuses:
            presence = Presence(status=status, role="coder")  # type: ignore[arg-type]
            await bus.publish(Envelope.new(run_id, "coder/0", presence))
        stored = await runlog.fetch_run(bus, run_id)
        while len(stored) < len(statuses):  # core publishes: wait until the stream has them
            stored = await runlog.fetch_run(bus, run_id)
        count, left_out, _ = await runlog.export_jsonl(bus, run_id, tmp_path / "log.jsonl")
    kept = [r.envelope.payload for r in read_jsonl(tmp_path / "log.jsonl").records if r.envelope]
    assert (count, left_out) == (2, 3)
    assert [k.status for k in kept] == ["up", "down"]  # type: ignore[union-attr]


def write_log(path: Path, n: int) -> list[bytes]:
    records = [
        LogRecord(seq=i + 1, subject="society.r.chat", envelope=Envelope.new("r", "a/0", p))
        for i, p in enumerate(SAMPLES[:n])
    ]
    write_jsonl(records, path)
    return path.read_bytes().splitlines(keepends=True)


def test_cut_last_line_is_read_up_to_the_damage(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    lines = write_log(path, 5)
    path.write_bytes(b"".join(lines[:4]) + lines[4][:30])
    read = read_jsonl(path)
    assert len(read.records) == 4
    assert read.stopped_at == 5
    assert str(read.problems[0]) == "line 5: the line is cut short (truncated log)"


def test_garbage_line_stops_with_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    lines = write_log(path, 5)
    path.write_bytes(b"".join(lines[:2]) + b"this is not json\n" + b"".join(lines[2:]))
    seen = []
    read = read_jsonl(path, on_problem=seen.append)
    assert len(read.records) == 2 and read.stopped_at == 3
    assert seen and seen[0].line == 3 and "not JSON" in seen[0].message


def test_unknown_message_type_is_kept_raw_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    lines = write_log(path, 4)
    doc = json.loads(lines[1])
    doc["envelope"]["payload"] = {"type": "from_the_future", "x": 1}
    lines[1] = json.dumps(doc).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    read = read_jsonl(path)
    assert len(read.records) == 4 and read.stopped_at is None
    assert read.records[1].envelope is None and "from_the_future" in (read.records[1].raw or "")
    assert read.problems[0].line == 2 and "from_the_future" in read.problems[0].message


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(runlog.RunLogError, match="no such log file"):
        read_jsonl(tmp_path / "nope.jsonl")


async def test_a_server_whose_jetstream_does_not_answer_is_reported_unavailable(
    run_id: str,
) -> None:
    """What a user sees while the server loads it (SIGHUP): no JetStream responder. Callers
    that just issued the user retry on ``unavailable``; other failures are final."""
    import asyncio

    from bus.errors import RunLogError
    from bus.server import find_server_binary, free_port

    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        str(find_server_binary()),
        "-a",
        "127.0.0.1",
        "-p",
        str(port),  # no -js
    )
    try:
        bus = Bus(f"nats://127.0.0.1:{port}", name="plain")
        async with asyncio.timeout(60):
            while True:  # the server is up once it accepts a connection
                try:
                    await bus.connect()
                    break
                except BusConnectError:
                    await asyncio.sleep(0.05)
        try:
            with pytest.raises(RunLogError) as raised:
                await runlog.run_exists(bus, run_id)
            assert raised.value.unavailable
        finally:
            await bus.close()
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)
