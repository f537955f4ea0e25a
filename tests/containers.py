"""The sandbox containers a run leaves behind, once Docker has removed those on their way out.

A run does not wait for Docker: its containers stop by themselves when it closes them (or
when its process dies) and Docker removes them moments later (a loaded machine may take
minutes). A container still there after that is a leak.

Removal is awaited through Docker's event stream, replayed from just before the listing, not
with ``wait(condition="removed")``: that call can miss a removal under way and then hang
forever (docker/docker-py#2655, apocas/dockerode#596; seen in CI on Docker 20.10).
"""

from __future__ import annotations

import time

import docker

from sandbox.labels import RUN

__all__ = ["containers_left", "wait_removed"]

_REPLAY_S = 2
"""Events are replayed from this long before the listing, so none between the two is missed."""


def containers_left(run_id: str, timeout_s: float = 150) -> list[str]:
    """Ids of the run's sandbox containers still there ``timeout_s`` after the call, unless
    all were removed sooner."""
    client = docker.from_env(version="auto", timeout=int(timeout_s) + 60)
    try:
        return wait_removed(client, run_id, timeout_s)
    finally:
        client.close()


def wait_removed(client: docker.DockerClient, run: str, timeout_s: float = 150) -> list[str]:
    """Wait until Docker has removed every container labelled with ``run`` (at most
    ``timeout_s``); return the ids of those still there."""
    filters = {"label": f"{RUN}={run}"}
    since = int(time.time()) - _REPLAY_S
    deadline = int(time.time() + timeout_s) + 1
    listed = {str(item["Id"]) for item in client.api.containers(all=True, filters=filters)}
    if listed:
        events = client.api.events(
            since=since,
            until=deadline,
            filters={**filters, "type": "container", "event": "destroy"},
            decode=True,
        )
        try:
            for event in events:
                listed.discard(str(event.get("id") or event.get("Actor", {}).get("ID", "")))
                if not listed:
                    break
        finally:
            events.close()
    return [str(item["Id"]) for item in client.api.containers(all=True, filters=filters)]
