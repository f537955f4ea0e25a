"""NATS users: where each role, role instance or person may publish and subscribe, as
nats-server config, made from the roster's cards of who says and hears what (`bus.roster`).

A run's own server has one user per identity of that run (`identity_permissions`): each
role instance and each person, allowed only that run's subjects, answers and control
signed with its own name, and only its own role's work queue, by exact consumer name.

A shared server (``society nats-config``, distributed) has one (``SOCIETY``, JetStream on) holds a user per role, named after the role. A
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bus import bodies, subjects
from bus.envelope import signature
from bus.roster import EVERYONE, ROSTER
from bus.runlog import STREAM_NAME, queue_stream
from bus.subjects import Channel

__all__ = [
    "ACCOUNT",
    "Cluster",
    "Tls",
    "identity_permissions",
    "inbox_prefix",
    "role_permissions",
    "roles",
    "server_config",
]

ACCOUNT = "SOCIETY"


def roles() -> tuple[str, ...]:
    """Every enrolled role that has a user of its own on a shared server (`bus.roster`)."""
    return tuple(card.name for card in ROSTER if card.user)


_SIGNED = (Channel.CONTROL, Channel.HUMAN_ANSWER)


def inbox_prefix(identity: str) -> str:
    """The inbox prefix of a role's (or identity's) connections: replies and deliveries."""
    return f"_INBOX_{subjects.check_token(identity, 'identity')}"


def _patterns(
    channel: Channel, run: str = "*", chat_to: str = "*", sender: str | None = None
) -> list[str]:
    """A channel of one run (``run``) or all (``*``): ``task.<role>`` of any role, chat to all
    and to ``chat_to``, and answers and control signed by ``sender`` (any, without one)."""
    base = f"{subjects.PREFIX}.{run}.{channel.value}"
    if channel is Channel.CHAT:
        return [base, f"{base}.{chat_to}"]
    if channel is Channel.TASK:
        return [f"{base}.*"]
    if channel in _SIGNED:
        return [f"{base}.{signature(sender) if sender else '*'}"]
    return [base]


def _publishes(role: str, run: str, sender: str | None) -> list[str]:
    said = (*EVERYONE, *ROSTER.card(role).publishes)
    return [p for c in said for p in _patterns(c, run, sender=sender)]


def _subscribes(role: str, run: str) -> list[str]:
    listens = ROSTER.card(role).hears
    if listens is None:
        return [f"{subjects.PREFIX}.{run}.>"]
    return [p for c in listens for p in _patterns(c, run, chat_to=role)]


def _bodies() -> list[str]:
    """Storing and reading message bodies too large for one message (`bus.bodies`): any
    identity may, since a body is checked against the digest its message carries."""
    stream = bodies.stream_name()
    api = subjects.JS_API
    return [
        f"$O.{bodies.BUCKET}.>",
        subjects.js_stream_info(stream),
        subjects.js_msg_get(stream),
        f"{api}.STREAM.NAMES",
        f"{api}.CONSUMER.CREATE.{stream}",
        f"{api}.CONSUMER.CREATE.{stream}.>",
        f"{api}.CONSUMER.DELETE.{stream}.>",
    ]


def _roll(role: str, run: str) -> list[str]:
    """A manager asks the run's role instances who is there (`roles.base`)."""
    return [subjects.roll_call(run)] if role == "manager" else []


def _limits(role: str, run: str) -> list[str]:
    """Where a role's processes ask the run's shared rate limits and budget (not people)."""
    return [] if role == "human" else [f"{subjects.LIMITS_PREFIX}.{run}.{role}"]


def role_permissions(role: str) -> dict[str, Any]:
    """The publish/subscribe allow lists of ``role``'s user (any run: a shared server)."""
    publish = [*_publishes(role, "*", None), *_limits(role, "*"), *_roll(role, "*")]
    subscribe = [*_subscribes(role, "*"), f"{inbox_prefix(role)}.>", subjects.roll_call()]
    if role == "manager":  # also the runner's login, which hosts the run's limits
        acks = subjects.js_ack(queue_stream("manager"))
        subscribe.append(subjects.limits_wildcard())
        return _allow([*publish, *_bodies(), f"{subjects.JS_API}.>", acks], subscribe)
    # Find runs to join (workers started after the goal) and read their goal.
    publish += [subjects.js_stream_info(STREAM_NAME), subjects.js_msg_get(STREAM_NAME)]
    publish += _bodies()
    card = ROSTER.card(role)
    if card.queue is not None:  # its queue's stream holds only its work: any consumer of it
        stream = queue_stream(card.queue)
        publish += [
            subjects.js_consumer_create(stream, card.queue_filters()[0]),
            subjects.js_consumer_info(stream),
            subjects.js_consumer_next(stream),
            subjects.js_ack(stream),
        ]
    if role == "human":  # reads the log (attach): ephemeral, ordered consumers only
        publish += _log_reading()
    return _allow(publish, subscribe)


def identity_permissions(run_id: str, role: str, sender: str) -> dict[str, Any]:
    """The allow lists of one identity of one run: a role instance or a person.

    It publishes only its role's channels of this run (answers and control signed with its
    own name), hears only what its role needs, and touches no work queue but its own
    role's, by exact consumer name (a run's consumer names are known in advance).
    """
    subjects.check_token(run_id, "run id")
    identity = signature(sender)
    publish = [*_publishes(role, run_id, sender), *_limits(role, run_id), *_roll(role, run_id)]
    subscribe = [
        *_subscribes(role, run_id),
        f"{inbox_prefix(identity)}.>",
        subjects.roll_call(run_id),
    ]
    publish += [subjects.js_stream_info(STREAM_NAME), subjects.js_msg_get(STREAM_NAME)]
    publish += _bodies()
    queue = ROSTER.queue_of(role)
    if queue is not None:
        stream, name = queue_stream(queue), subjects.consumer_name(run_id, queue)
        create = f"{subjects.JS_API}.CONSUMER.CREATE.{stream}.{name}"
        publish += [
            create,
            f"{create}.>",
            f"{subjects.JS_API}.CONSUMER.INFO.{stream}.{name}",
            f"{subjects.JS_API}.CONSUMER.MSG.NEXT.{stream}.{name}",
            f"{subjects.JS_ACK}.{stream}.{name}.>",
        ]
    if role == "human":
        publish += _log_reading()
    return _allow(publish, subscribe)


def _log_reading() -> list[str]:
    """Reading the run log with ephemeral ordered consumers (no pulls, no acks): creating
    one (unnamed), and asking the stream what it holds."""
    return [f"{subjects.JS_API}.CONSUMER.CREATE.{STREAM_NAME}"]


def _allow(
    publish: list[str], subscribe: list[str], deny: list[str] | None = None
) -> dict[str, Any]:
    rules: dict[str, Any] = {
        "publish": {"allow": sorted(set(publish))},
        "subscribe": {"allow": sorted(set(subscribe))},
        "allow_responses": True,
    }
    if deny:
        rules["publish"]["deny"] = sorted(set(deny))
    return rules


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
    users: Sequence[Mapping[str, Any]] = (),
    store_dir: str | None = None,
    cluster: Cluster | None = None,
    tls: Tls | None = None,
    max_payload: int | None = None,
) -> str:
    """nats-server config text: JetStream on, the ``SOCIETY`` account with one user per role.

    ``passwords`` maps role names to passwords; roles left out get no user. ``users`` are
    further users as nats-server takes them (``user``, ``password``, ``permissions``):
    the identities of one run (`identity_permissions`).
    """
    known = roles()
    unknown = sorted(set(passwords) - set(known))
    if unknown:
        msg = f"no permissions are defined for role(s) {', '.join(unknown)} (known: {', '.join(known)})"
        raise ValueError(msg)
    role_users = [
        {"user": role, "password": password, "permissions": role_permissions(role)}
        for role, password in passwords.items()
    ]
    everyone = [*role_users, *(dict(u) for u in users)]
    config: dict[str, Any] = {
        "jetstream": {"store_dir": store_dir} if store_dir else {},
        "accounts": {ACCOUNT: {"jetstream": "enabled", "users": everyone}},
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
