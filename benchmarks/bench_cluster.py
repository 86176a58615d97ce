"""Live rollouts on a Ray cluster against the same room on this server alone, in a real browser.

    python benchmarks/bench_cluster.py [--sessions 8] [--seconds 60] [--node-cpus 4]
                                       [--kill-after 20] [--assets DIR] [--size 320]

Starts a local Ray cluster on this machine: a head with no cores and two worker nodes, each a
separate `ray start` process declaring --node-cpus cores (tests/ray_cluster.py; every process
shares this machine's real cores, the browsers' and the server's too). Then three rooms of
--sessions viewers (bench_load's seeded random walks, `tests/e2e/room.py`), each on a fresh
server with a fresh video cache and idle pre-rendering off:

- local: `paretoscope dashboard` alone (its own worker pool);
- cluster: `paretoscope dashboard --ray-address` (the server relays, the nodes record);
- cluster, a node killed: the same, with one worker node killed (SIGKILL, its whole process
  tree) --kill-after seconds into the moves.

Prints per room: slider -> first frame (p50 / p95 / max), moves served / made, frames the
browsers showed, the server process group's CPU seconds per frame shown, the longest stall of
a live stream; then the server's CPU per frame on the cluster over local's (the issue's
<= 25%), and the killed room's longest stall (its streams resumed within it; the issue's
<= 2 s). Figures are printed to read beside the issue's, not checked. Exits non-zero when a
move or a video is lost or a page shows an error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.bench_load import Room, delays, describe, package_versions, run_room  # noqa: E402
from benchmarks.verdict import verdict  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.room import lost, stalls  # noqa: E402
from tests.ray_cluster import LocalCluster, local_cluster  # noqa: E402

NODES = ["node_a", "node_b"]


def frames_shown(room: Room) -> int:
    """Streamed frames the browsers showed (each new frame of each live stream)."""
    return sum(int(stream["frames"]) for session in room.sessions for stream in session.streams)


def nodes_cpu_seconds(cluster: LocalCluster) -> float:
    """CPU time (user + system, s) used so far by the worker nodes' processes (each `ray start`
    and everything it started: raylet, workers, actors), the ones alive now."""
    import psutil

    total = 0.0
    for node in cluster.workers.values():
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(node.pid)
            for process in [root, *root.children(recursive=True)]:
                with contextlib.suppress(psutil.NoSuchProcess):
                    times = process.cpu_times()
                    total += times.user + times.system
    return total


def report(name: str, room: Room, nodes_cpu: float | None = None) -> float:
    """Prints the room's figures; returns the server's CPU seconds per frame shown."""
    frames = frames_shown(room)
    moves = sum(session.moves for session in room.sessions)
    server_cpu = room.cpu[1]
    per_frame = server_cpu / max(frames, 1)
    stream_stalls = stalls(room.sessions)
    print(f"{name}:")
    print(f"  slider change -> first frame: {describe(delays(room.sessions))}")
    print(f"  moves served / made: {len(delays(room.sessions))} / {moves}")
    print(
        f"  frames shown {frames}; server CPU {server_cpu:.1f} s over {room.walked:.0f} s "
        f"({server_cpu / room.walked:.2f} cores), {1000 * per_frame:.1f} ms per frame shown"
    )
    if nodes_cpu is not None:
        print(
            f"  worker nodes' CPU {nodes_cpu:.1f} s for the whole room (its opening included), "
            f"{1000 * nodes_cpu / max(frames, 1):.1f} ms per frame shown"
        )
    print(
        f"  longest stall of a live stream: {max(stream_stalls, default=float('nan')):.2f} s "
        f"(n={len(stream_stalls)} streams)"
    )
    return per_frame


def killer(cluster: LocalCluster, after: float, killed: list[str]) -> Callable[[], None]:
    """What kills the first worker node `after` seconds after it is called (`run_room` calls
    it in a thread of its own once the moves begin)."""

    def kill() -> None:
        time.sleep(after)  # the schedule: `after` seconds into the moves
        killed.append(NODES[0])
        cluster.kill(NODES[0])
        print(f"  killed worker node {NODES[0]} {after:.0f} s into the moves", flush=True)

    return kill


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--node-cpus", type=int, default=4)
    parser.add_argument("--kill-after", type=float, default=20.0)
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--every", type=float, nargs=2, default=(3.0, 6.0), metavar=("MIN", "MAX"))
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    if not (args.assets / "manifest.json").is_file():
        sys.exit(f"{args.assets}: no manifest.json (build the demo, or name --assets)")
    os.environ["PARETOSCOPE_PRERENDER"] = "0"  # the rooms' own moves only
    from playwright.sync_api import sync_playwright

    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    failures: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        print("versions:", package_versions(browser.version), flush=True)
        local = run_room(browser, args.assets, args.sessions, args, floor=False)
        with local_cluster(NODES, cpus=args.node_cpus) as cluster:
            flags = ("--ray-address", cluster.address)
            import ray

            print(f"ray {ray.__version__}; nodes {NODES}, {args.node_cpus} cores each", flush=True)
            before = nodes_cpu_seconds(cluster)
            on_cluster = run_room(browser, args.assets, args.sessions, args, False, flags)
            nodes_cpu = nodes_cpu_seconds(cluster) - before
            killed: list[str] = []
            kill = killer(cluster, args.kill_after, killed)
            with_kill = run_room(browser, args.assets, args.sessions, args, False, flags, kill)
        browser.close()

    print(f"{args.sessions} viewers, {args.seconds:.0f} s of moves, video {args.size}x{args.size}")
    local_per_frame = report("local (this server alone)", local)
    cluster_per_frame = report("on the cluster", on_cluster, nodes_cpu)
    report(f"on the cluster, node {killed[0] if killed else '(none)'} killed", with_kill)
    print(
        f"server CPU per frame shown, cluster / local: "
        f"{cluster_per_frame / local_per_frame:.0%}  [<= 25%]"
    )
    print(
        "longest stall with a node killed (its streams resumed within it): "
        f"{max(stalls(with_kill.sessions), default=float('nan')):.2f} s  [<= 2 s]"
    )
    for name, room in (("local", local), ("cluster", on_cluster), ("killed", with_kill)):
        failures += [f"{name}: {problem}" for problem in lost(room.sessions)]
    if not killed:
        failures.append("no node was killed (the moves ended first: lower --kill-after)")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
