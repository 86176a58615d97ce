"""What relaying live episodes from a Ray cluster costs the relaying process, without pages.

    python benchmarks/bench_relay.py [--viewers 8] [--moves 5] [--watch 4] [--node-cpus 5]

Starts a local Ray cluster (a head with no cores and two worker nodes of --node-cpus cores each,
separate `ray start` processes on this machine: tests/ray_cluster.py). Then --viewers threads of
this process each follow --moves live HalfCheetah episodes in turn through `ClusterRecorders`,
as a dashboard's pages do (paced at 5 frames a second, JPEG pictures), each watched --watch
seconds from its first frame and then left (the viewer's next move). A first round starts and
warms the actors and is not counted.

Prints the frames relayed, this process's CPU per frame (every thread: the streams' own and
Ray's), the streams' threads' own share of it, and the worker nodes' CPU per frame. The server's
whole cost, with pages and browsers, is `benchmarks/bench_cluster.py`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.bench_cluster import NODES, nodes_cpu_seconds  # noqa: E402
from tests.agents_for_tests import LinearAgent, episode_of  # noqa: E402
from tests.ray_cluster import local_cluster  # noqa: E402

CHEETAH = "MO-HalfCheetah-v2"
SHOWN_RATE = 5.0  # frames a second a page shows with eight viewers on one server


class Moved(Exception):
    """The viewer moved on: the stream ends, as a page's does."""


class Watch:
    """One move's episode as a viewer watches it: `seconds` from its first frame, then left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.began: float | None = None
        self.frames = 0

    def frame(self, _frame: object) -> None:
        self.frames += 1
        self.began = self.began or time.monotonic()
        self.check()

    def check(self) -> None:
        if self.began is not None and time.monotonic() - self.began > self.seconds:
            raise Moved()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=8)
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--watch", type=float, default=4.0)
    parser.add_argument("--node-cpus", type=int, default=5)
    parser.add_argument("--horizon", type=int, default=500)
    args = parser.parse_args()
    os.environ.setdefault("MUJOCO_GL", "egl")

    from paretoscope.cluster.recorders import ClusterRecorders, LivePace
    from paretoscope.jpeg import QUALITY as JPEG_QUALITY  # what the pages show

    agent = LinearAgent(CHEETAH, seed=3)
    pace = LivePace(SHOWN_RATE, smooth=False)

    def room(recorders: ClusterRecorders, first_seed: int) -> tuple[int, float]:
        """Frames relayed, and the streams' threads' own CPU seconds."""
        watches: list[Watch] = []
        threads_cpu: list[float] = []

        def viewer(number: int) -> None:
            started_cpu = time.thread_time()
            for move in range(args.moves):
                watch = Watch(args.watch)
                watches.append(watch)
                with contextlib.suppress(Moved):
                    recorders.record(
                        episode_of(
                            agent, args.horizon, seed=first_seed + 1000 * number + move, size=320
                        ),
                        [agent],
                        watch.frame,
                        check=watch.check,
                        pace=pace,
                        jpeg_quality=JPEG_QUALITY,
                    )
            threads_cpu.append(time.thread_time() - started_cpu)

        threads = [threading.Thread(target=viewer, args=(n,)) for n in range(args.viewers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sum(watch.frames for watch in watches), sum(threads_cpu)

    import ray

    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"python {sys.version.split()[0]}, ray {ray.__version__}")
    with local_cluster(NODES, cpus=args.node_cpus) as cluster:
        recorders = ClusterRecorders(cluster.address)
        room(recorders, first_seed=0)  # the actors start and warm: not counted
        nodes_before, process_before, wall_before = (
            nodes_cpu_seconds(cluster),
            time.process_time(),
            time.monotonic(),
        )
        frames, threads_cpu = room(recorders, first_seed=100_000)
        process_cpu = time.process_time() - process_before
        wall = time.monotonic() - wall_before
        nodes_cpu = nodes_cpu_seconds(cluster) - nodes_before
    per_frame = 1000 / max(frames, 1)
    print(
        f"{args.viewers} viewers, {args.moves} moves each, {args.watch:.0f} s watched: "
        f"{frames} frames relayed in {wall:.1f} s"
    )
    print(
        f"this process: {process_cpu:.2f} s CPU ({process_cpu / wall:.3f} cores), "
        f"{process_cpu * per_frame:.2f} ms per frame; the streams' threads "
        f"{threads_cpu * per_frame:.2f} ms of it"
    )
    print(f"worker nodes: {nodes_cpu:.1f} s CPU, {nodes_cpu * per_frame:.1f} ms per frame")
    print("load average at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
