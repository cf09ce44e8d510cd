"""Two hosts on one machine: the MEMCOMM_MPIEXEC_ARGS route for a real host list, run on two
network namespaces joined by a veth pair. Each rank runs in its own namespace under its own
host name (tests/netns-ssh.sh is the launcher's ssh), so the MPI takes them for two nodes
and reaches the other rank only over TCP through the link. Needs root; skipped otherwise."""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from clirun import BUILT, ROOT, handled_calls

SSH = ROOT / "tests" / "netns-ssh.sh"


@dataclass
class Hosts:
    names: tuple[str, str]
    addresses: tuple[str, str]
    subnet: str
    link: str  # the veth end in the first namespace

    def bytes_received(self) -> int:
        """Bytes the first namespace received over the link."""
        text = subprocess.run(
            ["ip", "-n", self.names[0], "-j", "-s", "link", "show", self.link],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return int(json.loads(text)[0]["stats64"]["rx"]["bytes"])

    def run_in_first(
        self, command: list[str], env: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        """`command` in the first namespace, under its name as host name (as mpiexec's host)."""
        return subprocess.run(
            ["ip", "netns", "exec", self.names[0], "unshare", "--uts", "sh", "-c",
             f'hostname {self.names[0]} && exec "$@"', "sh", *command],
            cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], capture_output=True, text=True, check=True)


@pytest.fixture
def two_hosts() -> Iterator[Hosts]:
    if os.geteuid() != 0:
        pytest.skip("two network namespaces need root (ip netns add)")
    if not shutil.which("ip") or not shutil.which("unshare"):
        pytest.skip("two network namespaces need ip (iproute2) and unshare (util-linux)")
    tag = os.getpid() % 200 + 20
    hosts = Hosts(
        names=(f"memcomm{tag}a", f"memcomm{tag}b"),
        addresses=(f"10.231.{tag}.1", f"10.231.{tag}.2"),
        subnet=f"10.231.{tag}.0/24",
        link=f"mcveth{tag}a",
    )
    try:
        for name in hosts.names:
            _ip("netns", "add", name)
        _ip("link", "add", hosts.link, "type", "veth", "peer", "name", f"mcveth{tag}b")
        for end, name, address in zip("ab", hosts.names, hosts.addresses, strict=True):
            _ip("link", "set", f"mcveth{tag}{end}", "netns", name)
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", f"mcveth{tag}{end}")
            _ip("-n", name, "link", "set", f"mcveth{tag}{end}", "up")
            _ip("-n", name, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as error:
        for name in hosts.names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
        pytest.skip(f"this machine cannot make network namespaces: {error.stderr.strip()}")
    try:
        yield hosts
    finally:
        for name in hosts.names:  # deleting a namespace deletes its end of the link
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def host_list_settings(mpi: str, hosts: Hosts) -> dict[str, str]:
    """What a user sets for two hosts, in each launcher's dialect, plus each MPI's TCP path
    (the wheels' defaults would still find the other rank through shared memory: MPICH's
    UCX and Open MPI's sm see one machine)."""
    if mpi == "openmpi":
        return {
            "MEMCOMM_MPIEXEC_ARGS": (
                f"--host {hosts.addresses[0]}:1,{hosts.addresses[1]}:1 --map-by node "
                f"--prtemca plm_ssh_agent {SSH} --prtemca oob_tcp_if_include {hosts.subnet} "
                f"--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include {hosts.subnet}"
            )
        }
    return {
        "MEMCOMM_MPIEXEC_ARGS": (
            f"-launcher ssh -launcher-exec {SSH} -hosts {hosts.addresses[0]},{hosts.addresses[1]}"
        ),
        "MPIR_CVAR_CH4_NETMOD": "ofi",
        "FI_PROVIDER": "tcp",
    }


@pytest.mark.parametrize("mpi", BUILT)
def test_two_ranks_on_two_hosts_through_mpiexec_arguments(mpi: str, two_hosts: Hosts) -> None:
    env = {**os.environ, **host_list_settings(mpi, two_hosts), "MEMCOMM_STATS": "1"}
    memcomm_run = [sys.executable, "-m", "memcomm.cli", "run", "-n", "2", "--mpi", mpi, "--"]

    where = two_hosts.run_in_first([*memcomm_run, "hostname"], env)
    assert where.returncode == 0, where.stderr
    assert sorted(where.stdout.split()) == sorted(two_hosts.names)

    before = two_hosts.bytes_received()
    pingpong = ROOT / "build" / mpi / "bench" / "bench_pingpong"
    result = two_hosts.run_in_first(
        [*memcomm_run, str(pingpong), "--reps", "3", "--sizes", "128", "--only", "transpose"], env
    )
    received = two_hosts.bytes_received() - before
    # the benchmark exits non-zero if memcomm delivers other bytes than the MPI
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    carried = [r for r in records if r.get("kind") == "result" and r["method"] == "memcomm"]
    assert carried, result.stdout
    # every timed round trip brought the message back through the link
    assert received >= sum(r["bytes"] * len(r["seconds"]) for r in carried)
    handled = handled_calls(result.stderr)
    assert set(handled) == {0, 1} and all(calls > 0 for calls in handled.values()), handled
