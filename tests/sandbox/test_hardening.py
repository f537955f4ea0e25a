"""Every container the pool makes carries the full hardening, as Docker itself reports it."""

from __future__ import annotations

import docker
import pytest

from sandbox import POOL, PROJECT, RUN, Sandbox, list_containers

pytestmark = [pytest.mark.docker, pytest.mark.timeout(60)]


async def test_pool_containers_are_hardened(
    sandbox: Sandbox, docker_client: docker.DockerClient
) -> None:
    await sandbox.wait_idle()
    ids = list_containers(docker_client, pool=sandbox.pool_id)
    assert len(ids) == sandbox.pool_target
    s = sandbox.settings
    for container_id in ids:
        info = docker_client.api.inspect_container(container_id)
        host, config = info["HostConfig"], info["Config"]
        assert host["NetworkMode"] == "none"
        assert host["ReadonlyRootfs"] is True
        assert host["Privileged"] is False
        assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
        assert host["SecurityOpt"] == ["no-new-privileges"]
        assert host["Memory"] == host["MemorySwap"] == s.memory_mb * 2**20
        assert host["NanoCpus"] == int(s.cpus * 1e9)
        assert host["PidsLimit"] == s.pids
        ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}
        assert ulimits["nofile"] == (s.nofile, s.nofile)
        assert ulimits["fsize"][0] <= max(s.max_file_bytes + 1, s.max_input_bytes)
        assert ulimits["core"] == (0, 0)
        assert set(host["Tmpfs"]) == {"/work", "/tmp", "/dev/shm"}  # /dev/shm: ours, not Docker's
        for options in host["Tmpfs"].values():
            assert f"size={s.workdir_mb}m,nr_inodes={s.tmpfs_inodes}" in options
        assert not host["Binds"] and not info["Mounts"]
        assert not host["Devices"]
        assert host["LogConfig"]["Type"] == "none"
        assert config["User"] == s.user
        assert config["Labels"][PROJECT] == "1"
        assert config["Labels"][RUN] == sandbox.label
        assert config["Labels"][POOL] == sandbox.pool_id
        assert info["NetworkSettings"]["Networks"].keys() == {"none"}


async def test_limits_hold_inside(sandbox: Sandbox) -> None:
    code = (
        "import os, resource\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[1], resource.getrlimit(resource.RLIMIT_FSIZE)[1])\n"
        "print(open('/proc/self/oom_score_adj').read().strip())\n"
        "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
        "print(open('/proc/self/status').read().split('NoNewPrivs:')[1].split()[0])\n"
        "print(*(os.statvfs(p).f_files for p in ('/work', '/tmp', '/dev/shm')))\n"
    )
    result = await sandbox.execute(code)
    s = sandbox.settings
    assert result.stdout.split() == [
        str(s.nofile),
        str(s.max_file_bytes + 1),
        "1000",
        "0" * 16,
        "1",
        *[str(s.tmpfs_inodes)] * 3,
    ]
