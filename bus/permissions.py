"""Per-role NATS users: where each role may publish and subscribe, as nats-server config.

One account (``SOCIETY``, JetStream on) holds a user per role, named after the role. A
user may publish only its own role's channels (a coder publishes results and sandbox
records, never a plan or a final message) plus what every role says (presence, chat,
usage, dead letters), and subscribe only to what its role listens to and to its own
inbox prefix (`inbox_prefix`), so no role reads another's replies or deliveries. Work
queue access is narrowed where JetStream's API subjects allow it: a worker may create
only consumers filtered on its own role's queue; pulling and acking name the consumer
but not its filter, so they are allowed per stream. The manager (which also runs the
runner: it creates the stream, exports the log, removes queues) has the JetStream API.

The config is JSON, which nats-server reads as its own format. Everything here is pure:
tests and ``society nats-config`` (used by compose) write it to a file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bus import subjects
from bus.runlog import STREAM_NAME
from bus.subjects import Channel

__all__ = [
    "ACCOUNT",
    "ROLES",
    "Cluster",
    "Tls",
    "inbox_prefix",
    "role_permissions",
    "server_config",
]

ACCOUNT = "SOCIETY"

_EVERYONE = (Channel.PRESENCE, Channel.CHAT, Channel.USAGE, Channel.DEAD_LETTER)

_PUBLISH: dict[str, tuple[Channel, ...]] = {
    "manager": (
        Channel.GOAL,
        Channel.PLAN_REQUEST,
        Channel.PLAN_DECISION,
        Channel.TASK,
        Channel.CONTROL,
        Channel.HUMAN_ASK,
        Channel.FINAL,
    ),
    "planner": (Channel.PLAN, Channel.HUMAN_ASK),
    "researcher": (Channel.RESULT, Channel.HUMAN_ASK),
    "coder": (Channel.RESULT, Channel.EXEC, Channel.HUMAN_ASK),
    "critic": (Channel.CRITIQUE,),
    "reflector": (Channel.LESSON,),
    "human": (Channel.HUMAN_ANSWER, Channel.CONTROL),
}

_LISTENS: dict[str, tuple[Channel, ...] | None] = {
    "manager": None,  # everything (it is also the runner, which shows the whole run)
    "critic": None,
    "human": None,
    "reflector": (
        Channel.GOAL,
        Channel.TASK,
        Channel.RESULT,
        Channel.CRITIQUE,
        Channel.HUMAN_ANSWER,
        Channel.FINAL,
        Channel.CONTROL,
        Channel.CHAT,
    ),
    "planner": (Channel.GOAL, Channel.FINAL, Channel.CONTROL, Channel.CHAT),
    "researcher": (Channel.GOAL, Channel.FINAL, Channel.CONTROL, Channel.CHAT),
    "coder": (Channel.GOAL, Channel.FINAL, Channel.CONTROL, Channel.CHAT),
}

_QUEUES: dict[str, tuple[Channel, str | None]] = {
    "planner": (Channel.PLAN_REQUEST, None),
    "researcher": (Channel.TASK, "researcher"),
    "coder": (Channel.TASK, "coder"),
}

ROLES: tuple[str, ...] = tuple(_PUBLISH)
"""Every role that has a user."""


def inbox_prefix(role: str) -> str:
    """The inbox prefix a role's connections use (replies and JetStream deliveries)."""
    return f"_INBOX_{subjects.check_token(role, 'role')}"


def _patterns(channel: Channel, chat_to: str = "*") -> list[str]:
    """A channel in every run: any role's for ``task.<role>``; chat to all and to ``chat_to``."""
    if channel is Channel.CHAT:
        return [subjects.any_run(channel), subjects.any_run(channel, chat_to)]
    if channel is Channel.TASK:
        return [subjects.any_run(channel, "*")]
    return [subjects.any_run(channel)]


def role_permissions(role: str) -> dict[str, Any]:
    """The publish/subscribe allow lists of ``role``'s user."""
    publish = [p for c in (*_EVERYONE, *_PUBLISH[role]) for p in _patterns(c)]
    listens = _LISTENS[role]
    if listens is None:
        subscribe = [subjects.ALL_RUNS]
    else:
        subscribe = [p for c in listens for p in _patterns(c, chat_to=role)]
    subscribe.append(f"{inbox_prefix(role)}.>")
    stream = STREAM_NAME
    if role == "manager":
        publish += [f"{subjects.JS_API}.>", subjects.js_ack(stream)]
    else:
        # Find runs to join (workers started after the goal) and read their goal.
        publish += [subjects.js_stream_info(stream), subjects.js_msg_get(stream)]
        queue = _QUEUES.get(role)
        if queue is not None:
            filter_subject = subjects.any_run(*queue)
            publish += [
                subjects.js_consumer_create(stream, filter_subject),
                subjects.js_consumer_info(stream),
                subjects.js_consumer_next(stream),
                subjects.js_ack(stream),
            ]
        if role == "human":  # reads the log live (attach)
            publish += [
                f"{subjects.JS_API}.CONSUMER.CREATE.{stream}",
                subjects.js_consumer_create(stream, subjects.ALL_RUNS),
                subjects.js_consumer_info(stream),
                subjects.js_consumer_next(stream),
                f"{subjects.JS_API}.CONSUMER.DELETE.{stream}.*",
                subjects.js_ack(stream),
            ]
    return {
        "publish": {"allow": sorted(set(publish))},
        "subscribe": {"allow": sorted(set(subscribe))},
        "allow_responses": True,
    }


@dataclass(frozen=True)
class Tls:
    """Server TLS files (PEM). With ``verify``, clients must present a certificate too."""

    cert_file: str
    key_file: str
    ca_file: str | None = None
    verify: bool = False


@dataclass(frozen=True)
class Cluster:
    """Routes between the nodes of a cluster."""

    name: str = "society"
    listen: str = "0.0.0.0:6222"
    routes: tuple[str, ...] = ()
    """``nats-route://host:port`` of every node (a node skips itself)."""
    extra: dict[str, Any] = field(default_factory=dict)


def server_config(
    passwords: Mapping[str, str],
    *,
    store_dir: str | None = None,
    cluster: Cluster | None = None,
    tls: Tls | None = None,
    max_payload: int | None = None,
) -> str:
    """nats-server config text: JetStream on, the ``SOCIETY`` account with one user per role.

    ``passwords`` maps role names to passwords; roles left out get no user.
    """
    unknown = sorted(set(passwords) - set(ROLES))
    if unknown:
        msg = f"no permissions are defined for role(s) {', '.join(unknown)} (known: {', '.join(ROLES)})"
        raise ValueError(msg)
    users = [
        {"user": role, "password": password, "permissions": role_permissions(role)}
        for role, password in passwords.items()
    ]
    config: dict[str, Any] = {
        "jetstream": {"store_dir": store_dir} if store_dir else {},
        "accounts": {ACCOUNT: {"jetstream": "enabled", "users": users}},
    }
    if cluster is not None:
        config["cluster"] = {
            "name": cluster.name,
            "listen": cluster.listen,
            "routes": list(cluster.routes),
            **cluster.extra,
        }
    if tls is not None:
        block: dict[str, Any] = {"cert_file": tls.cert_file, "key_file": tls.key_file}
        if tls.ca_file:
            block["ca_file"] = tls.ca_file
        if tls.verify:
            block["verify"] = True
        config["tls"] = block
    if max_payload is not None:
        config["max_payload"] = max_payload
    return json.dumps(config, indent=2) + "\n"
