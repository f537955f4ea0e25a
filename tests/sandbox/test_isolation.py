"""Two executions never see each other's files or processes, in sequence or concurrently."""

from __future__ import annotations

import asyncio
import json

import pytest

from sandbox import Sandbox

pytestmark = [pytest.mark.docker, pytest.mark.timeout(60)]

PROBE = """
import json, os
seen = sorted(os.listdir('.')) + sorted('/tmp/' + n for n in os.listdir('/tmp'))
procs = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
open('mine-{tag}', 'w').write('{tag}')
open('/tmp/mine-{tag}', 'w').write('{tag}')
print(json.dumps({{'seen': seen, 'procs': procs, 'host': open('/etc/hostname').read()}}))
"""


async def test_a_file_written_is_gone_in_the_next_execution(sandbox: Sandbox) -> None:
    first = await sandbox.execute(PROBE.format(tag="a"))
    second = await sandbox.execute(PROBE.format(tag="b"))
    assert first.files == {"mine-a": b"a"}
    assert json.loads(second.stdout)["seen"] == []


async def test_concurrent_executions_are_isolated(sandbox: Sandbox) -> None:
    tags = [f"t{i}" for i in range(6)]
    results = await asyncio.gather(*(sandbox.execute(PROBE.format(tag=t)) for t in tags))
    for tag, result in zip(tags, results, strict=True):
        probe = json.loads(result.stdout)
        assert probe["seen"] == [], f"{tag} saw {probe['seen']}"
        assert result.files == {f"mine-{tag}": tag.encode()}
        # PID 1 (the supervisor) and the code itself: no process of another task is visible
        assert len(probe["procs"]) == 2, probe["procs"]
