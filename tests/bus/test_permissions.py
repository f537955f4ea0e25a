"""Per-role users: the allow lists, and a real nats-server enforcing them (and TLS)."""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import nats.errors
import pytest

from bus import Bus, BusConnectError, BusPermissionError, ConnectOptions, EmbeddedServer, runlog
from bus.errors import RunLogError
from bus.payloads import Plan, TaskResult
from bus.permissions import Tls, inbox_prefix, role_permissions, roles, server_config
from bus.subjects import Channel, matches
from bus.workqueue import DeliverySettings, QueueSpec, ensure_queue
from tests.bus.live import refused

RUN = "r1"


def allowed(role: str, kind: str, subject: str) -> bool:
    return any(matches(p, subject) for p in role_permissions(role)[kind]["allow"])


@pytest.mark.parametrize(
    ("role", "subject", "ok"),
    [
        ("coder", "society.r1.result", True),
        ("coder", "society.r1.exec", True),
        ("coder", "society.r1.chat.planner", True),
        ("coder", "society.r1.plan", False),
        ("coder", "society.r1.final", False),
        ("coder", "society.r1.task.coder", False),
        ("coder", "society.r1.control.manager-0", False),
        ("planner", "society.r1.plan", True),
        ("planner", "society.r1.result", False),
        ("researcher", "society.r1.result", True),
        ("critic", "society.r1.critique", True),
        ("critic", "society.r1.final", False),
        ("manager", "society.r1.final", True),
        ("manager", "society.r1.task.coder", True),
        ("manager", "society.r1.result", False),
        ("human", "society.r1.control.human-ada", True),
        ("human", "society.r1.plan", False),
    ],
)
def test_each_role_publishes_only_its_own_channels(role: str, subject: str, ok: bool) -> None:
    assert allowed(role, "publish", subject) is ok


def test_roles_hear_only_what_they_need_and_their_own_inbox() -> None:
    assert allowed("coder", "subscribe", "society.r1.control.human-ada")
    assert allowed("coder", "subscribe", "society.r1.chat.coder")
    assert not allowed("coder", "subscribe", "society.r1.chat.planner")
    assert not allowed("coder", "subscribe", "society.r1.result")
    assert allowed("coder", "subscribe", f"{inbox_prefix('coder')}.abc")
    assert not allowed("coder", "subscribe", f"{inbox_prefix('planner')}.abc")
    assert allowed("critic", "subscribe", "society.r1.usage")
    create = "$JS.API.CONSUMER.CREATE.SOCIETY-task-coder.r1--task-coder.society.r1.task.coder"
    assert allowed("coder", "publish", create)
    assert not allowed("coder", "publish", create.replace("coder", "planner"))
    # pulls and acks name the stream: the coder's queue stream holds only coder tasks
    assert allowed(
        "coder", "publish", "$JS.API.CONSUMER.MSG.NEXT.SOCIETY-task-coder.r1--task-coder"
    )
    for other in ("SOCIETY.r1--manager", "SOCIETY-plan-request.r1--plan-request"):
        assert not allowed("coder", "publish", f"$JS.API.CONSUMER.MSG.NEXT.{other}")
        assert not allowed("coder", "publish", f"$JS.ACK.{other}.1.2.3.4.5")
        assert not allowed("human", "publish", f"$JS.API.CONSUMER.MSG.NEXT.{other}")


def test_the_config_is_json_with_one_user_per_role_and_optional_tls() -> None:
    doc = json.loads(
        server_config({"coder": "c", "manager": "m"}, tls=Tls("s.pem", "s.key", "ca.pem", True))
    )
    users = doc["accounts"]["SOCIETY"]["users"]
    assert [u["user"] for u in users] == ["coder", "manager"]
    assert doc["accounts"]["SOCIETY"]["jetstream"] == "enabled"
    assert doc["tls"] == {
        "cert_file": "s.pem",
        "key_file": "s.key",
        "ca_file": "ca.pem",
        "verify": True,
    }
    with pytest.raises(ValueError, match="no permissions are defined for role"):
        server_config({"janitor": "x"})


@pytest.fixture
async def secured(tmp_path: Path) -> AsyncIterator[tuple[EmbeddedServer, dict[str, str]]]:
    passwords = {role: secrets.token_urlsafe(12) for role in roles()}
    config = tmp_path / "users.conf"
    config.write_text(server_config(passwords))
    async with EmbeddedServer(tmp_path / "nats", config_file=config) as server:
        yield server, passwords


def login(server: EmbeddedServer, passwords: dict[str, str], role: str) -> ConnectOptions:
    url = f"nats://{role}:{passwords[role]}@{server.host}:{server.port}"
    return ConnectOptions.from_url(url, inbox_prefix=inbox_prefix(role))


@pytest.mark.nats
@pytest.mark.timeout(30)
async def test_the_server_enforces_the_roles(
    secured: tuple[EmbeddedServer, dict[str, str]],
) -> None:
    server, passwords = secured
    settings = DeliverySettings()
    async with Bus(login(server, passwords, "manager"), name="manager", durable=True) as manager:
        await runlog.ensure_stream(manager)
    async with Bus(login(server, passwords, "coder"), name="coder", durable=True) as coder:
        result = TaskResult(task_id="t", role="coder", status="done")
        await coder.send(RUN, "coder/1", result)  # stored: its own subject
        await ensure_queue(coder, RUN, QueueSpec.tasks("coder", 1), settings)  # its own queue
        with pytest.raises(
            BusPermissionError, match=r"NATS refused publishing to 'society\.r1\.plan'"
        ):
            await coder.send(RUN, "coder/1", Plan(revision=1))
        planner_queue = QueueSpec("plan-request", (Channel.PLAN_REQUEST,))
        with pytest.raises(RunLogError):  # not the planner's queue (refused: no answer in 5 s)
            await ensure_queue(coder, RUN, planner_queue, settings)
        assert (
            "publishing to",
            "$js.api.consumer.create.society-plan-request.r1--plan-request.society.r1.plan.request",
        ) in coder.refusals
        # the manager's inbox (a consumer on the log): the coder may not pull from it
        manager_queue = await ensure_queue(
            manager_bus := await _open(server, passwords, "manager"),
            RUN,
            QueueSpec("manager", (Channel.PLAN, Channel.RESULT, Channel.CRITIQUE), ordered=True),
            settings,
        )
        await manager_bus.close()
        pull = await coder.js.pull_subscribe_bind(manager_queue, stream=runlog.STREAM_NAME)
        with pytest.raises(nats.errors.Error):
            await pull.fetch(1, timeout=2)
        denied = f"$js.api.consumer.msg.next.society.{manager_queue.lower()}"
        await refused(coder, lambda subject: subject == denied)
    wrong = f"nats://coder:nope@{server.host}:{server.port}"
    with pytest.raises(BusConnectError, match="Authorization Violation") as caught:
        await Bus(ConnectOptions.from_url(wrong, connect_timeout=1)).connect()
    assert "nope" not in str(caught.value)  # credentials never reach a message


@pytest.mark.nats
@pytest.mark.timeout(30)
async def test_a_person_reading_the_log_cannot_rewrite_a_work_queue(
    secured: tuple[EmbeddedServer, dict[str, str]],
) -> None:
    server, passwords = secured
    inbox = QueueSpec("manager", (Channel.PLAN, Channel.RESULT, Channel.CRITIQUE), ordered=True)
    async with Bus(login(server, passwords, "manager"), name="manager") as manager:
        await runlog.ensure_stream(manager)
        name = await ensure_queue(manager, RUN, inbox, DeliverySettings())
        stream = runlog.queue_stream("manager")
        before = (await manager.js.consumer_info(stream, name)).config
        async with Bus(login(server, passwords, "human"), name="human") as human:
            # the ephemeral-consumer endpoint reading the log needs takes a name in its body
            config = {**before.as_dict(), "durable_name": None, "filter_subject": "society.>"}
            for target in (runlog.STREAM_NAME, stream):
                with contextlib.suppress(nats.errors.Error):
                    await human.nc.request(
                        f"$JS.API.CONSUMER.CREATE.{target}",
                        json.dumps({"stream_name": target, "config": config}).encode(),
                        timeout=2,
                    )
            await refused(human, lambda s: s == f"$js.api.consumer.create.{stream.lower()}")
        assert (await manager.js.consumer_info(stream, name)).config == before


async def _open(server: EmbeddedServer, passwords: dict[str, str], role: str) -> Bus:
    bus = Bus(login(server, passwords, role), name=role)
    await bus.connect()
    return bus


def test_credentials_in_a_url_move_into_the_options() -> None:
    opts = ConnectOptions.from_url("nats://coder:s%40cret@h1:4222, nats://coder:s%40cret@h2:4222")
    assert opts.servers == ("nats://h1:4222", "nats://h2:4222")
    assert (opts.user, opts.password, opts.token) == ("coder", "s@cret", None)
    assert ConnectOptions.from_url("nats://tok@h:1").token == "tok"
    assert ConnectOptions.from_url("nats://h:1").user is None


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (it is its own CA)."""
    cert, key = folder / "server.pem", folder / "server.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.nats
@pytest.mark.timeout(30)
async def test_tls_is_a_matter_of_configuration(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    config = tmp_path / "tls.conf"
    config.write_text(server_config({"manager": "m"}, tls=Tls(str(cert), str(key))))
    async with EmbeddedServer(tmp_path / "nats", config_file=config) as server:
        url = f"tls://manager:m@{server.host}:{server.port}"
        opts = ConnectOptions.from_url(url, tls_ca=str(cert), inbox_prefix=inbox_prefix("manager"))
        async with Bus(opts) as bus:
            assert bus.connected_url.startswith("tls://")
            await runlog.ensure_stream(bus)
        with pytest.raises(BusConnectError):  # an unverified server is refused
            await Bus(ConnectOptions.from_url(url, connect_timeout=1)).connect()
