"""The web view keeps the run's trust model (a real live run, a real `society web`, real
HTTP requests): no session, another origin, a foreign Host, a text/plain body or another
person's name are each refused and change nothing; an invited person acts under their own
name, and the run's approver list holds through the page."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from bus.logfile import read_jsonl
from bus.payloads import Answer, Chat, Control

from .test_trust import write_guarded
from .test_web import cli

pytestmark = [pytest.mark.nats, pytest.mark.docker, pytest.mark.timeout(240)]


async def invite(runs: Path, run_id: str, name: str) -> dict[str, str]:
    async with cli("invite", run_id, "--name", name, "--runs-dir", str(runs)) as proc:
        said = await proc.line_with("a credential for run")
    return read_credential(said.rsplit(": ", 1)[1].strip())


def read_credential(path: str) -> dict[str, str]:
    return json.loads(Path(path).read_text())  # type: ignore[no-any-return]


async def test_only_the_people_of_the_run_act_and_each_under_their_own_name(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    scenario = write_guarded(tmp_path)
    async with cli("run", str(scenario), "--runs-dir", str(runs)) as run:
        attach = await run.line_with("take part: society attach ")
        run_id = attach.split("society attach ")[1].split()[0]
        bob, ada = await invite(runs, run_id, "bob"), await invite(runs, run_id, "ada")
        async with cli("web", "--runs-dir", str(runs), "--port", "0", "--name", "owner") as web:
            url = (await web.line_with("society web: http://")).split()[2].rstrip("/")
            own = {"Origin": url}
            act = f"{url}/api/runs/{run_id}/act"
            async with httpx.AsyncClient(trust_env=False, timeout=30) as nobody:
                forged = '{"name":"ada","action":"abort","text":"forged"}'
                attack = {"Origin": "http://attacker.example", "Content-Type": "text/plain"}
                r = await nobody.post(act, content=forged, headers=attack)
                assert r.status_code == 403  # the curl: refused before anything
                r = await nobody.post(act, json={"action": "abort"}, headers=own)
                assert r.status_code == 401 and "sign in" in r.json()["error"]
                r = await nobody.post(
                    f"{url}/api/login", json={**bob, "password": "guess"}, headers=own
                )
                assert r.status_code == 403
            async with httpx.AsyncClient(trust_env=False, timeout=60) as as_bob:
                r = await as_bob.post(f"{url}/api/login", json=bob, headers=own)
                assert r.status_code == 200 and r.json() == {"name": "bob", "run": run_id}
                r = await as_bob.post(
                    act, json={"action": "abort"}, headers={"Origin": "http://attacker.example"}
                )
                assert r.status_code == 403 and "attacker.example" in r.json()["error"]
                r = await as_bob.post(
                    act,
                    content='{"action": "abort"}',
                    headers={**own, "Content-Type": "text/plain"},
                )
                assert r.status_code == 403 and "application/json" in r.json()["error"]
                r = await as_bob.post(
                    act, json={"action": "abort"}, headers={**own, "Host": "rebound.example"}
                )
                assert r.status_code == 400  # DNS rebinding: a Host that is not ours
                r = await as_bob.post(act, json={"action": "abort", "name": "ada"}, headers=own)
                assert r.status_code == 403 and "cannot act as ada" in r.json()["error"]
                # bob may approve only if the run lets him: it does not (approvers: [ada])
                r = await as_bob.post(act, json={"action": "approve"}, headers=own)
                assert r.status_code == 200 and r.json()["ok"] == "approve sent as human/bob"
            async with httpx.AsyncClient(trust_env=False, timeout=60) as as_ada:
                r = await as_ada.post(f"{url}/api/login", json=ada, headers=own)
                assert r.status_code == 200
                r = await as_ada.post(act, json={"action": "approve", "target": "#1"}, headers=own)
                assert r.status_code == 200 and r.json()["ok"] == "approve sent as human/ada"
                for _ in range(240):  # the researcher's question comes once the plan runs
                    page = (await as_ada.get(f"{url}/api/runs/{run_id}")).json()
                    if any("Atkin" in q["text"] for q in page["pending"]):
                        break
                    await asyncio.sleep(0.25)  # polling the page, as the browser does
                r = await as_ada.post(act, json={"action": "answer", "text": "Atkin"}, headers=own)
                assert r.status_code == 200, r.text
        await asyncio.wait_for(run.proc.wait(), 90)
        assert run.proc.returncode == 0, "\n".join(run.lines[-30:])
    envs = [r.envelope for r in read_jsonl(runs / run_id / "log.jsonl").records if r.envelope]
    answers = [(e.sender, e.payload.by) for e in envs if isinstance(e.payload, Answer)]
    assert answers[:1] == [("human/bob", "bob")]  # refused by the run, not by the page
    assert ("human/ada", "ada") in answers and all(s.partition("/")[2] == by for s, by in answers)
    notices = [e.payload.text for e in envs if isinstance(e.payload, Chat)]
    assert any("bob may not decide" in n for n in notices)
    assert not any(isinstance(e.payload, Control) and e.payload.action == "abort" for e in envs)
    assert not any(e.sender.startswith("human/owner") for e in envs)  # nobody acted as the owner
