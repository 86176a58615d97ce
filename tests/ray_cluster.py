"""A real Ray cluster of several nodes on this machine, for tests: a head (no cores: nothing runs
on it) and worker nodes started as separate ``ray start --block`` processes, each with one core
and a resource of its own name (so a test can tell the nodes apart and kill one). Every process
has Ray's token authentication off (a test's cluster lives minutes; Ray reads the mode once per
process, so this one must agree with the nodes whatever ran before), the test's code on
PYTHONPATH and a MuJoCo GL backend."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

REPO_DIR = Path(__file__).resolve().parents[1]
START_TIMEOUT = 180.0  # seconds for a node to join (a loaded 2-core machine is slow)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalCluster:
    """The head and named worker nodes; `ray` is connected to it while the cluster lives."""

    def __init__(self, ray: Any, address: str, environment: dict[str, str], folder: Path):
        self.ray = ray
        self.address = address
        self.environment = environment
        self.folder = folder
        self.head: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.logs: list[IO[bytes]] = []

    def _ray_start(self, *flags: str) -> subprocess.Popen:
        command = [str(Path(sys.executable).with_name("ray")), "start", "--block", *flags]
        log = open(self.folder / f"node-{len(self.workers)}-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115
        self.logs.append(log)
        return subprocess.Popen(
            [*command, "--disable-usage-stats", "--node-ip-address=127.0.0.1"],
            env=self.environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: the node and everything it started
        )

    def start_head(self, port: int) -> None:
        self.head = self._ray_start(
            "--head",
            f"--port={port}",
            "--num-cpus=0",
            "--include-dashboard=false",
            f"--temp-dir={self.folder / 'ray'}",
        )

    def start_worker(self, name: str, cpus: int = 1) -> None:
        """A worker node with `cpus` cores (Ray's logical ones: how many one-core actors it
        runs at once) and the resource `name`; returns once it has joined."""
        self.workers[name] = self._ray_start(
            f"--address={self.address}", f"--num-cpus={cpus}", f'--resources={{"{name}": 1}}'
        )
        self.wait_for(lambda nodes: name in self.alive_names(nodes), f"node {name} to join")

    def alive_names(self, nodes: list[dict] | None = None) -> set[str]:
        """The named worker nodes alive now, as the cluster sees them."""
        nodes = self.ray.nodes() if nodes is None else nodes
        return {
            name
            for node in nodes
            if node["Alive"]
            for name in node["Resources"]
            if name in self.workers
        }

    def name_of(self, node_id: str) -> str:
        (node,) = [node for node in self.ray.nodes() if node["NodeID"] == node_id]
        (name,) = [name for name in node["Resources"] if name in self.workers]
        return name

    def kill(self, name: str) -> None:
        """Kill worker node `name` and every process it started (its raylet, its workers and
        their actors), at once (SIGKILL): the node dies as a machine would."""
        _kill_tree(self.workers[name].pid)

    def wait_for(self, condition: Any, what: str, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self.ray.nodes()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout:.0f} s for {what}; logs in {self.folder}")
            time.sleep(0.2)

    def stop(self) -> None:
        for process in [*self.workers.values(), *([self.head] if self.head else [])]:
            _kill_tree(process.pid)
        for process in [*self.workers.values(), *([self.head] if self.head else [])]:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(30)
        for log in self.logs:
            log.close()


def _kill_tree(pid: int) -> None:
    """SIGKILL `pid` and all its descendants (Ray moves some into process groups of their own,
    so a group kill would miss them)."""
    import psutil

    with contextlib.suppress(psutil.NoSuchProcess):
        root = psutil.Process(pid)
        for process in [*root.children(recursive=True), root]:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGKILL)


def _wait_listening(port: int, folder: Path) -> None:
    """Return once the head's GCS accepts connections on `port`."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1.0):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the Ray head did not listen on {port}; logs in {folder}")
        time.sleep(0.2)


@contextlib.contextmanager
def local_cluster(workers: list[str], cpus: int = 1) -> Iterator[LocalCluster]:
    """A head and `workers` (named worker nodes of `cpus` cores each), this process connected
    to it; everything stopped (and this process disconnected) on leaving."""
    settings = {
        # Ray starts its workers (the recording actors) at niceness 15, below every other
        # process here: these nodes share one machine with the servers and the browsers, where
        # a node of its own would run its actors against nothing else.
        "RAY_worker_niceness": "0",
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
        "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_DIR), os.environ.get("PYTHONPATH")])),
    }
    saved = {name: os.environ.get(name) for name in settings}
    folder = Path(tempfile.mkdtemp(prefix="rc", dir="/tmp"))  # short: Ray's socket paths
    port = _free_port()
    cluster = LocalCluster(None, f"127.0.0.1:{port}", {**os.environ, **settings}, folder)
    try:
        os.environ.update(settings)  # before Ray reads them
        import ray

        cluster.ray = ray
        cluster.start_head(port)
        _wait_listening(port, cluster.folder)  # a failed ray.init leaves state that fails again
        ray.init(address=cluster.address, log_to_driver=False, include_dashboard=False)
        for name in workers:
            cluster.start_worker(name, cpus)
        yield cluster
    finally:
        if cluster.ray is not None:
            with contextlib.suppress(Exception):
                cluster.ray.shutdown()
        cluster.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(folder, ignore_errors=True)
