"""Removing sandbox containers by label: what ``society sandbox gc`` runs.

Normally nothing is left over: a Sandbox removes its containers on exit and on Ctrl-C, and a
container whose host died stops and removes itself. A container that a killed host had only
created (never started) cannot: the next Sandbox on the same machine removes such orphans
when it starts (`remove_orphans`). ``gc`` is for the rest (a killed host with the daemon
down at the time, another machine's leftovers).
"""

from __future__ import annotations

import asyncio
import os

import docker

from sandbox.container import remove_quietly
from sandbox.daemon import connect
from sandbox.labels import OWNER, label_filters, owner

__all__ = ["gc", "list_containers", "remove_containers", "remove_orphans"]


def list_containers(
    client: docker.DockerClient, *, run: str | None = None, pool: str | None = None
) -> list[str]:
    """Ids of the sandbox containers (running or not) of a run and/or pool; blocking."""
    found = client.api.containers(all=True, filters={"label": label_filters(run, pool)})
    return [str(item["Id"]) for item in found]


def remove_containers(
    client: docker.DockerClient, *, run: str | None = None, pool: str | None = None
) -> int:
    """Force-remove the sandbox containers of a run and/or pool; blocking. Returns how many."""
    ids = list_containers(client, run=run, pool=pool)
    return sum(remove_quietly(client.api, container_id) for container_id in ids)


def remove_orphans(client: docker.DockerClient) -> int:
    """Remove this machine's sandbox containers that never ran and whose maker is dead;
    blocking. Returns how many."""
    host = owner().rpartition(":")[0]
    found = client.api.containers(
        all=True, filters={"label": label_filters(), "status": ["created", "exited"]}
    )
    removed = 0
    for item in found:
        made_by, _, pid = str(item["Labels"].get(OWNER, "")).rpartition(":")
        if made_by == host and pid.isdigit() and not _alive(int(pid)):
            removed += remove_quietly(client.api, str(item["Id"]))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def gc(label: str | None = None, *, docker_host: str | None = None) -> int:
    """Remove leftover sandbox containers: those of run ``label``, or all of them when None.

    Raises DockerUnavailable when the daemon cannot be reached. Returns how many were removed.
    """
    client = await asyncio.to_thread(connect, docker_host)
    try:
        return await asyncio.to_thread(remove_containers, client, run=label)
    finally:
        client.close()
