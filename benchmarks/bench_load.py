"""Many viewers at once: N headless Chromium sessions on one dashboard server.

    python benchmarks/bench_load.py [--sessions 8] [--seconds 60] [--solo-seconds 30]
                                    [--assets DIR] [--size 320]

Prints the package versions, then measures two rooms in the same run, each on its own server
with a fresh video cache on the bundled demo (assets/): one viewer alone for --solo-seconds,
then N viewers (one browser, one context each) for --seconds. Each viewer moves the preference
slider every few seconds on a seeded random walk (so viewers differ and sometimes meet), the
next move once the last one showed its first frame (`tests/e2e/room.py` drives them).

A move is served when the picture changes to the new episode: a streamed frame the page had
not shown, or the finished video under a caption naming the new preference (a cached
episode); timed in the page itself. Prints p50 / p95 / max of slider -> first frame, for the
room and alone, and their p95 ratio; moves served / made; videos delivered (each viewer's last
move must end in a playable video); the stalls of the live streams (once a stream plays, the
longest time it showed no new frame until its video played or the viewer moved again, its
last frame's wait for the video included); how long the room took past its --seconds of moves;
the server's peak memory (its whole process group: Python and the ffmpeg encoders). Splits the
first-frame delay with the server's trace (`paretoscope.dashboard.trace`): key press -> the
page's run reaches its slider ("run"; split again at the run's start), the run -> its first
frame (or video) sent (split again where the server's feed begins the episode's frames:
`paretoscope.dashboard.frame_feed`), sent -> on screen. Prints the CPU that the machine's
Chromium processes and the server's process group used while the viewers moved.

Exits non-zero when a move or a video is lost, a page shows an error, or the server's memory
passes 3 GB; the issue's figures (p95 <= 1 s, ratio <= 3, no stall over 1 s, done within 90 s
of the moves, memory <= 2 GB) are printed beside each number to read, not checked.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.procfs import processes  # noqa: E402
from benchmarks.server import cli_server, dashboard_server, floor_server  # noqa: E402
from benchmarks.verdict import verdict  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.room import (  # noqa: E402
    STALL_LIMIT,
    Session,
    finish,
    lost,
    open_sessions,
    percentile,
    stalls,
    walk,
)

MEMORY_LIMIT = 3 * 2**30
VERSIONS = ("streamlit", "playwright", "torch", "mujoco", "numpy", "plotly", "imageio-ffmpeg")


def package_versions(browser_version: str) -> str:
    from importlib import metadata

    found = [f"python {sys.version.split()[0]}", f"chromium {browser_version}"]
    for name in VERSIONS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


@dataclass
class Room:
    """One room's measures."""

    sessions: list[Session]
    walked: float  # seconds of moves
    done_after: float  # seconds from the walk's start until every last video played
    cpu: tuple[float, float]  # browsers', server's CPU seconds while walking
    memory: list[int]  # the server group's RSS samples (bytes)
    trace: Path  # the server's page-run milestones (`paretoscope.dashboard.trace`)


def run_room(
    browser,  # noqa: ANN001 - Playwright's
    assets: Path,
    count: int,
    args: argparse.Namespace,
    floor: bool,
    flags: tuple[str, ...] = (),
    during: Callable[[], None] | None = None,
) -> Room:
    """`count` viewers on a fresh server (its own video cache) for args.seconds of moves; the
    server started with `paretoscope dashboard FLAGS` when flags are given. `during()` runs
    in a thread of its own once the moves begin (to break something meanwhile)."""
    cache = Path(tempfile.mkdtemp(prefix="bench-load-cache-"))
    trace = cache / "trace.jsonl"
    os.environ["PARETOSCOPE_TRACE"] = str(trace)
    if floor:
        serving = floor_server(["--stream"])
    elif flags:
        serving = cli_server(assets, cache, *flags)
    else:
        serving = dashboard_server(assets, cache)
    memory: list[int] = []
    stop_sampling = threading.Event()
    with serving as server:
        sampler = threading.Thread(
            target=sample_memory, args=(server.process.pid, stop_sampling, memory), daemon=True
        )
        sampler.start()
        try:
            sessions = open_sessions(browser, server.url, count, args.size)
            print(
                f"{count} session(s) ready after {time.monotonic() - server.launched:.1f} s",
                flush=True,
            )
            browsers_at_ready, server_at_ready = cpu_seconds(server.process.pid)
            if during is not None:
                threading.Thread(target=during, name="bench-during", daemon=True).start()
            ready = walk(sessions, args.seconds, tuple(args.every))
            walked = time.monotonic() - ready
            browsers_now, server_now = cpu_seconds(server.process.pid)
            cpu = (browsers_now - browsers_at_ready, server_now - server_at_ready)
            finish(sessions, timeout=300)
            done_after = time.monotonic() - ready
            for session in sessions:
                session.page.context.close()
        finally:
            stop_sampling.set()
    return Room(sessions, walked, done_after, cpu, memory, trace)


def delays(sessions: list[Session]) -> list[float]:
    return [value for session in sessions for value in session.first_frames]


def describe(values: list[float]) -> str:
    return (
        f"n={len(values)}  p50 {percentile(values, 0.5):.2f} s  "
        f"p95 {percentile(values, 0.95):.2f} s  max {max(values, default=float('nan')):.2f} s"
    )


def group_rss(group: int) -> int:
    """Resident memory of every process in the process group `group` (bytes)."""
    return sum(process.rss() for process in processes() if process.group == group)


def cpu_seconds(group: int) -> tuple[float, float]:
    """CPU time (user + system, s) used so far by this machine's Chromium processes and by the
    process group `group` (the server)."""
    browsers = server = 0.0
    for process in processes():
        if process.group == group:
            server += process.cpu_seconds
        elif process.name == "chromium":
            browsers += process.cpu_seconds
    return browsers, server


def sample_memory(group: int, stop: threading.Event, samples: list[int]) -> None:
    while not stop.is_set():
        samples.append(group_rss(group))
        stop.wait(0.5)


def split_delays(sessions: list[Session], trace: Path) -> dict[str, list[float]]:
    """Each served move's first-frame delay in three parts, from the server's trace: the first
    run with the new preference that starts after the key press, and that run session's first
    frame or video after it. The first part is split again at the run's start (the page's
    "run" mark comes after its sidebar and slider)."""
    lines = trace.read_text().splitlines() if trace.is_file() else []
    events = [json.loads(line) for line in lines]
    parts: dict[str, list[float]] = {
        "press -> run": [],
        "press -> start": [],
        "start -> run": [],
        "run -> sent": [],
        "run -> asked": [],
        "asked -> sent": [],
        "sent -> shown": [],
    }
    for session in sessions:
        for (pressed, value), delay in zip(session.presses, session.first_frames, strict=False):
            shown = pressed + delay
            runs = [
                event
                for event in events
                if event["event"] == "run"
                and pressed - 0.05 <= event["t"] <= shown
                and abs(event["preference"][-1] - value) < 1e-6
            ]
            if not runs:
                continue
            run = min(runs, key=lambda event: event["t"])
            sent = next(
                (
                    event
                    for event in events
                    if event["session"] == run["session"]
                    and event["event"] in ("frame", "video")
                    and run["t"] <= event["t"] <= shown + 0.05
                ),
                None,
            )
            if sent is None:
                continue
            start = max(
                (
                    event["t"]
                    for event in events
                    if event["session"] == run["session"]
                    and event["event"] == "start"
                    and pressed - 0.05 <= event["t"] <= run["t"]
                ),
                default=None,
            )
            if start is not None:
                parts["press -> start"].append(start - pressed)
                parts["start -> run"].append(run["t"] - start)
            asked = next(
                (
                    event["t"]
                    for event in events
                    if event["session"] == run["session"]
                    and event["event"] == "asked"
                    and run["t"] <= event["t"] <= sent["t"]
                ),
                None,
            )
            if asked is not None:
                parts["run -> asked"].append(asked - run["t"])
                parts["asked -> sent"].append(sent["t"] - asked)
            parts["press -> run"].append(run["t"] - pressed)
            parts["run -> sent"].append(sent["t"] - run["t"])
            parts["sent -> shown"].append(max(0.0, shown - sent["t"]))
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--solo-seconds",
        type=float,
        default=30.0,
        help="the one-viewer room measured first for the p95 ratio (0: none)",
    )
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--every", type=float, nargs=2, default=(3.0, 6.0), metavar=("MIN", "MAX"))
    parser.add_argument("--workers", type=int, default=None, help="rollout workers (cores)")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="serve benchmarks/floor_app.py --stream instead (Streamlit and Chromium alone)",
    )
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    if not (args.assets / "manifest.json").is_file():
        sys.exit(f"{args.assets}: no manifest.json (build the demo, or name --assets)")
    if args.workers:
        os.environ["PARETOSCOPE_WORKERS"] = str(args.workers)
    from playwright.sync_api import sync_playwright

    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        print("versions:", package_versions(browser.version), flush=True)
        solo = None
        if args.solo_seconds > 0:
            solo_args = argparse.Namespace(**{**vars(args), "seconds": args.solo_seconds})
            solo = run_room(browser, args.assets, 1, solo_args, args.floor)
        room = run_room(browser, args.assets, args.sessions, args, args.floor)
        browser.close()

    sessions = room.sessions
    frames = delays(sessions)
    moves = sum(session.moves for session in sessions)
    peak = max(room.memory) if room.memory else 0
    failures = lost(sessions)
    workers = os.environ.get("PARETOSCOPE_WORKERS") or os.cpu_count()
    served = "floor_app.py --stream (the floor)" if args.floor else f"assets: {args.assets}"
    print(
        f"{served}; {len(sessions)} sessions for {args.seconds:.0f} s, video "
        f"{args.size}x{args.size}, workers {workers}"
    )
    for session in sessions:
        print(
            f"  session {session.index}: {session.moves} moves, {len(session.first_frames)} "
            f"first frames, {session.videos} videos, {session.queued} queued, "
            f"{len(session.streams)} streams, {len(session.errors)} errors"
        )
    print(
        f"slider change -> first frame, {len(sessions)} viewers: {describe(frames)}  [p95 <= 1 s]"
    )
    if frames:
        print(f"  mean {statistics.fmean(frames):.2f} s")
    strict = [value for session in sessions for value in session.strict_frames]
    print(
        f"  once fresh   n={len(strict)}  p50 {percentile(strict, 0.5):.2f} s  "
        f"p95 {percentile(strict, 0.95):.2f} s (the frame's element no longer stale)"
    )
    for part, values in split_delays(sessions, room.trace).items():
        print(
            f"  {part:<14} n={len(values)}  p50 {percentile(values, 0.5):.2f} s  "
            f"p95 {percentile(values, 0.95):.2f} s"
        )
    if solo is not None:
        alone = delays(solo.sessions)
        print(f"slider change -> first frame, 1 viewer alone: {describe(alone)}")
        failures += [f"alone: {problem}" for problem in lost(solo.sessions)]
        ratio = percentile(frames, 0.95) / percentile(alone, 0.95)
        print(f"p95 ratio, {len(sessions)} viewers / 1 viewer: {ratio:.2f}  [<= 3]")
    stream_stalls = stalls(sessions)
    stalled = sum(stall > STALL_LIMIT for stall in stream_stalls)
    print(
        f"live stream stalls (longest time without a new frame once playing): "
        f"n={len(stream_stalls)}  max {max(stream_stalls, default=float('nan')):.2f} s  "
        f"p95 {percentile(stream_stalls, 0.95):.2f} s  over {STALL_LIMIT:.0f} s: {stalled}  [0]"
    )
    streams = [stream for session in sessions for stream in session.streams]
    if streams:
        worst = max(streams, key=lambda stream: max(stream["gap"], stream["tail"]))
        print(
            f"  worst stream: {worst['frames']} frames, longest gap {worst['gap'] / 1000:.2f} s, "
            f"last frame -> end {worst['tail'] / 1000:.2f} s, ended by {worst['ended']}"
        )
    browsers, server_cpu = room.cpu
    print(
        f"CPU while moving ({room.walked:.0f} s, in cores): browsers {browsers / room.walked:.2f}, "
        f"server {server_cpu / room.walked:.2f}; browsers per move {browsers / max(moves, 1):.2f} s"
    )
    print(f"moves served (first frame came) / made: {len(frames)} / {moves}")
    videos = sum(not session.armed for session in sessions)
    print(f"last videos delivered: {videos} / {len(sessions)}")
    print(
        f"the room's moves took {room.walked:.0f} s, every last video played "
        f"{room.done_after - room.walked:.0f} s later  [within 90 s]"
    )
    print(
        f"server memory (RSS of its process group): peak {peak / 2**20:.0f} MB, "
        f"last {(room.memory[-1] if room.memory else 0) / 2**20:.0f} MB, "
        f"{len(room.memory)} samples  [<= 2048 MB]"
    )
    if peak >= MEMORY_LIMIT:
        failures.append(f"server memory peaked at {peak / 2**30:.2f} GB (limit 3 GB)")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
