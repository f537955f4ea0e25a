"""The sandbox containers a run leaves behind, once Docker has removed those on their way out.

A run does not wait for Docker: its containers stop by themselves when it closes them (or
when its process dies) and Docker removes them moments later (a loaded machine may take
minutes). A container still there after that is a leak."""

from __future__ import annotations

import contextlib


def containers_left(run_id: str, timeout_s: int = 240) -> list[str]:
    """Ids of the run's sandbox containers still there after each was given ``timeout_s``
    to be removed."""
    import docker
    import docker.errors
    import requests.exceptions

    label = {"label": f"org.society.run={run_id}"}
    client = docker.from_env(version="auto", timeout=timeout_s + 60)
    try:
        for item in client.api.containers(all=True, filters=label):
            with contextlib.suppress(docker.errors.NotFound, requests.exceptions.ConnectionError):
                client.api.wait(item["Id"], condition="removed", timeout=timeout_s)
        return [str(item["Id"]) for item in client.api.containers(all=True, filters=label)]
    finally:
        client.close()
