"""Many viewers at once: N headless Chromium sessions on one dashboard server.

    python benchmarks/bench_load.py [--sessions 8] [--seconds 60] [--assets DIR] [--size 320]

Starts `paretoscope dashboard` (fresh video cache) on the bundled demo (assets/), opens N
sessions (one browser, one context each) and has each move the preference slider every few
seconds (a seeded random walk, so sessions differ and sometimes meet) for the given time.
Checks that every session gets its videos and that no page shows an error or an exception;
samples the server's memory (its whole process group: Python and the ffmpeg encoders) and
requires it under 3 GB. Prints p50 / p95 of the time from a slider change to the first frame
of the new episode (a streamed image, or the finished video when the episode was cached;
a frame of Explore's kept picture counts while Streamlit still draws it at full strength,
"once fresh" waits for its element to be the new run's), and the stalls of the live
streams: once a stream plays (its first new frame after a move), the longest time it showed
no new frame, until it ends (its video is playable) or the viewer moves
again; the gaps between successive new frames and the last frame's wait for that end both
count. Prints the worst stall, the p95 of the streams' worst stalls, how many streams stalled
over 1 s, the server's peak memory and the moves served (a first frame came) of those made.
Splits the first-frame delay with the server's trace (`paretoscope.dashboard.trace`): key press ->
the
page's run reaches its slider ("run"; split again at the run's start: press -> start, start ->
run), the run -> its first frame (or video) sent (split again where the server's feed begins
the episode's frames, `paretoscope.dashboard.frame_feed`: run -> asked, asked -> sent), sent -> on
screen.
The trace also notes a feed's look at its job that came late ("late look": the server's event
loop did not run). Prints the CPU that the machine's Chromium processes and the server's process
group used while the viewers moved (in cores: the two share the machine), and the browsers' CPU
per move.
Exits non-zero when a check fails (the stalls are reported, not checked).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.procfs import processes  # noqa: E402
from benchmarks.server import dashboard_server, floor_server  # noqa: E402
from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    EPISODE_VIDEO,
    FRAME_NAME,
    STREAMED_FRAME,
)

MEMORY_LIMIT = 3 * 2**30
STALL_LIMIT = 1.0  # seconds: a stream without a new frame for longer stalled
# Seconds between two reads of each page. The delays are timed in the page itself (when the
# page changes), so this only sets when the next move is made; reading 8 pages 20 times a second
# kept the browsers (and Playwright's driver) busy on the machine they share with the server.
POLL_SECONDS = 0.25
SLIDER = '[data-testid="stSlider"] input[type="range"]'
# The episode's player: the dashboard's own, or Streamlit's (what the dashboard drew before it
# had its own: the same script then measures the code of the baseline).
VIDEO = f'{EPISODE_VIDEO}, video[data-testid="stVideo"]'
# Armed just before a slider move: the time of the first new frame after it. A new frame is a
# streamed frame (not the SVG reward chart) whose name (`FRAME_NAME`) was not on the page at the
# move, or (a cached episode) a playable video under a caption that names the new preference.
# Also counts error elements.
# A frame of an episode the page showed at the move (`data-episode`) is not new.
# A stream (first frame a streamed one) is followed frame by frame: each frame name not seen
# before in it is a new frame; `gap` is the longest time between two new frames. It is closed
# (pushed to window.__streams with `tail`, the time from its last frame to the end) when its
# video is playable, at the next move, or by CLOSE at the end of the run.
# The page is looked at in the animation frame after it changes (a frame drawn, an element
# added, marked stale or fresh, a caption's text) or a player gets data, not at every animation
# frame: a look 60 times a second (with the page's text read for the queue notice) cost each
# page ~0.2 s of CPU a move, a third of what a viewer's page costs, on the cores the server
# shares.
ARM = """
(expected) => {
  const fresh = (element) => !element.closest('[data-stale="true"]');
  // A picture kept across runs (it names its episode) shows its new frames while its run's
  // messages are still on their way: Streamlit marks it stale meanwhile but draws it at full
  // strength for about half a second, then fades it. Its frame counts while it is drawn at
  // 0.9 or more (`strict` waits for the element to be fresh).
  const seen_at_full = (element) => {
    const stale = element.closest('[data-stale="true"]');
    return !stale || (element.dataset.episode !== undefined &&
                      parseFloat(getComputedStyle(stale).opacity) >= 0.9);
  };
  const frames = () => Array.from(document.querySelectorAll('STREAMED_FRAME'));
  const name = FRAME_NAME;
  const seen = new Set(frames().map(name));
  // A live picture kept across runs (a channel) names its episode: frames of the episodes
  // it showed before the move are the old stream's, however new.
  const before = new Set(frames().map((frame) => frame.dataset.episode).filter(Boolean));
  const close = (stream, how, now) => {
    if (!stream || !stream.streamed || stream.ended) return;
    stream.ended = how;
    window.__streams = window.__streams || [];
    window.__streams.push({
      gap: stream.gap, tail: now - stream.last, frames: stream.frames, ended: how});
  };
  if (window.__load && window.__load.stop) window.__load.stop();
  close(window.__load, 'move', performance.now());
  const names = (caption) => {
    const match = /^Preference \\S+ ([\\d.]+), \\S+ ([\\d.]+)/.exec(caption.textContent.trim());
    return match && Math.abs(parseFloat(match[2]) - expected) < 1e-6;
  };
  const state = {start: performance.now(), frame: null, strict: null, video: null, queued: false,
                 streamed: false, last: null, gap: 0, frames: 0, ended: null, close: close};
  window.__load = state;
  const check = () => {
    if (window.__load !== state || state.video !== null) return;
    const now = performance.now();
    let new_frame = false;
    for (const image of frames()) {
      const frame = name(image);
      const old = image.dataset.episode && before.has(image.dataset.episode);
      if (!frame || seen.has(frame) || old) continue;
      if (fresh(image) && state.strict === null) state.strict = now;
      if (seen_at_full(image)) {
        seen.add(frame);
        new_frame = true;
      }
    }
    if (new_frame) {
      if (state.frame === null) { state.frame = now; state.streamed = true; }
      else if (state.streamed) state.gap = Math.max(state.gap, now - state.last);
      state.last = now;
      state.frames += 1;
    }
    const captioned = Array.from(
      document.querySelectorAll('[data-testid="stCaptionContainer"]')).some(
        (c) => fresh(c) && names(c));
    const video = document.querySelector('VIDEO');
    if (captioned && video && fresh(video) && video.readyState >= 2) {
      if (state.frame === null) state.frame = now;
      if (state.strict === null) state.strict = now;
      state.video = now;
      close(state, 'video', now);
      state.stop();
    }
    if (Array.from(document.querySelectorAll('[data-testid="stAlert"]')).some(
        (alert) => alert.textContent.includes('queued ('))) state.queued = true;
  };
  // Looked at in the next animation frame after a change, as the frame is painted.
  let pending = false;
  const soon = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; check(); });
  };
  const observer = new MutationObserver(soon);
  observer.observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['data-frame', 'src', 'data-stale']});
  // A player's readiness changes no element: its events say it (they do not bubble).
  const media = (event) => { if (event.target.matches && event.target.matches('VIDEO')) soon(); };
  for (const kind of ['loadeddata', 'canplay']) document.addEventListener(kind, media, true);
  state.stop = () => {
    observer.disconnect();
    for (const kind of ['loadeddata', 'canplay']) document.removeEventListener(kind, media, true);
  };
  check();
}
""".replace("STREAMED_FRAME", STREAMED_FRAME).replace("VIDEO", VIDEO)
ARM = ARM.replace("FRAME_NAME", FRAME_NAME)
# At the end of the run: closes the stream still playing, if any, and returns every stream.
CLOSE = """
() => {
  const state = window.__load;
  if (state && state.close) state.close(state, 'open', performance.now());
  return window.__streams || [];
}
"""
READ = """
() => ({
  load: window.__load || null,
  errors: Array.from(document.querySelectorAll(
    '[data-testid="stException"], [data-testid="stAlertContentError"]')).map(
      (e) => e.innerText.slice(0, 300)),
})
"""


@dataclass
class Session:
    """One viewer: its page, its random walk and what it measured."""

    index: int
    page: object
    rng: random.Random
    value: float = 0.5
    step: float = 0.05
    next_move: float = 0.0
    moved_at: float | None = None
    # Per move: (key press on the monotonic clock, the preference's second weight).
    presses: list[tuple[float, float]] = field(default_factory=list)
    armed: bool = False
    first_frames: list[float] = field(default_factory=list)
    strict_frames: list[float] = field(default_factory=list)  # the first frame once fresh
    videos: int = 0
    moves: int = 0
    queued: int = 0
    errors: set[str] = field(default_factory=set)
    # Per live stream: its worst stall (s), the part of it at its end, and how it ended.
    streams: list[dict] = field(default_factory=list)


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


def move(session: Session) -> None:
    """Move the session's slider one step (its random walk), timing from the key press."""
    page = session.page
    direction = session.rng.choice((-1, 1))
    if session.value + direction * session.step > 1.0 + 1e-9:
        direction = -1
    if session.value + direction * session.step < -1e-9:
        direction = 1
    session.value = round(session.value + direction * session.step, 6)
    page.evaluate(ARM, round(session.value, 2))  # type: ignore[attr-defined]
    slider = page.locator(SLIDER).first  # type: ignore[attr-defined]
    slider.focus()
    session.presses.append((time.monotonic(), round(session.value, 2)))
    page.keyboard.press("ArrowRight" if direction > 0 else "ArrowLeft")  # type: ignore[attr-defined]
    session.moves += 1
    session.moved_at = time.monotonic()
    session.armed = True


def poll(session: Session) -> None:
    state = session.page.evaluate(READ)  # type: ignore[attr-defined]
    session.errors.update(state["errors"])
    load = state["load"]
    if not session.armed or not load:
        return
    if load.get("frame") is not None and load.get("counted") is None:
        session.first_frames.append((load["frame"] - load["start"]) / 1000.0)
        session.page.evaluate("() => { window.__load.counted = true; }")  # type: ignore[attr-defined]
        if load.get("queued"):
            session.queued += 1
    if load.get("strict") is not None and load.get("strict_counted") is None:
        session.strict_frames.append((load["strict"] - load["start"]) / 1000.0)
        session.page.evaluate("() => { window.__load.strict_counted = true; }")  # type: ignore[attr-defined]
    if load.get("video") is not None:
        session.videos += 1
        session.armed = False


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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
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

    cache = Path(tempfile.mkdtemp(prefix="bench-load-cache-"))
    trace = cache / "trace.jsonl"
    os.environ["PARETOSCOPE_TRACE"] = str(trace)
    serving = floor_server(["--stream"]) if args.floor else dashboard_server(args.assets, cache)
    memory: list[int] = []
    stop_sampling = threading.Event()
    sessions: list[Session] = []
    with serving as server:
        process, url, started = server.process, server.url, server.launched
        try:
            sampler = threading.Thread(
                target=sample_memory, args=(process.pid, stop_sampling, memory), daemon=True
            )
            sampler.start()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
                )
                for index in range(args.sessions):
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    page = context.new_page()
                    page.goto(f"{url}/?size={args.size}")
                    sessions.append(Session(index, page, random.Random(index)))
                for session in sessions:
                    session.page.locator(SLIDER).first.wait_for(state="attached", timeout=180_000)
                    slider = session.page.locator(SLIDER).first
                    # The range input's value: today's Streamlit slider has no aria-valuenow, and
                    # a walk that starts from a guessed 0.5 waits for captions naming
                    # preferences the page never shows (a move back to a seen preference, or
                    # an episode's end, then never counts).
                    session.value = float(slider.input_value())
                    session.step = float(slider.get_attribute("step") or 0.05)
                for session in sessions:
                    session.page.wait_for_function(
                        "() => { const v = document.querySelector('video'); "
                        "return v && v.readyState >= 2; }",
                        timeout=300_000,
                    )
                ready = time.monotonic()
                cpu_at_ready = cpu_seconds(process.pid)
                print(f"{len(sessions)} sessions ready after {ready - started:.1f} s", flush=True)
                end = ready + args.seconds
                for session in sessions:
                    session.next_move = ready + session.rng.uniform(0.0, args.every[1])
                while time.monotonic() < end:
                    now = time.monotonic()
                    for session in sessions:
                        poll(session)
                        # Move when due, once the previous move showed its first frame.
                        waiting_for_frame = (
                            session.armed and len(session.first_frames) < session.moves
                        )
                        if now >= session.next_move and not waiting_for_frame:
                            move(session)
                            session.next_move = now + session.rng.uniform(*args.every)
                    time.sleep(POLL_SECONDS)
                cpu_used = [
                    b - a for a, b in zip(cpu_at_ready, cpu_seconds(process.pid), strict=True)
                ]
                timed = time.monotonic() - ready
                # Every session's last preference must end in a playable video.
                deadline = time.monotonic() + 300
                while any(s.armed for s in sessions) and time.monotonic() < deadline:
                    for session in sessions:
                        poll(session)
                    time.sleep(0.1)
                for session in sessions:
                    poll(session)
                    session.streams = session.page.evaluate(CLOSE)
                browser.close()
        finally:
            stop_sampling.set()

    frames = [value for session in sessions for value in session.first_frames]
    stalls = [
        max(stream["gap"], stream["tail"]) / 1000.0
        for session in sessions
        for stream in session.streams
    ]
    tails = sum(
        stream["tail"] > stream["gap"] and stream["tail"] / 1000.0 > STALL_LIMIT
        for session in sessions
        for stream in session.streams
    )
    moves = sum(session.moves for session in sessions)
    peak = max(memory) if memory else 0
    failures = []
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
        if session.armed or len(session.first_frames) < session.moves:
            failures.append(f"session {session.index} did not get all its videos")
        for error in sorted(session.errors):
            failures.append(f"session {session.index} shows an error: {error}")
    print(
        f"slider change -> first frame: n={len(frames)}  p50 {percentile(frames, 0.5):.2f} s  "
        f"p95 {percentile(frames, 0.95):.2f} s  max {max(frames, default=float('nan')):.2f} s"
    )
    if frames:
        print(f"  mean {statistics.fmean(frames):.2f} s")
        # When the slowest moves came (seconds into the moving): a cluster at the start is
        # the room's set-up, spread ones are the load's.
        timed_moves = [
            (delay, press - ready)
            for session in sessions
            for delay, (press, _) in zip(session.first_frames, session.presses, strict=False)
        ]
        slowest = sorted(timed_moves, reverse=True)[:5]
        print("  slowest: " + ", ".join(f"{d:.2f} s at {t:.0f} s" for d, t in slowest))
    strict = [value for session in sessions for value in session.strict_frames]
    print(
        f"  once fresh   n={len(strict)}  p50 {percentile(strict, 0.5):.2f} s  "
        f"p95 {percentile(strict, 0.95):.2f} s (the frame's element no longer stale)"
    )
    for part, values in split_delays(sessions, trace).items():
        print(
            f"  {part:<14} n={len(values)}  p50 {percentile(values, 0.5):.2f} s  "
            f"p95 {percentile(values, 0.95):.2f} s"
        )
    stalled = sum(stall > STALL_LIMIT for stall in stalls)
    print(
        f"live stream stalls (longest time without a new frame once playing): n={len(stalls)}  "
        f"max {max(stalls, default=float('nan')):.2f} s  p95 {percentile(stalls, 0.95):.2f} s  "
        f"over {STALL_LIMIT:.0f} s: {stalled} ({tails} of them at the end: last frame -> "
        "playable video or next move)"
    )
    streams = [stream for session in sessions for stream in session.streams]
    if streams:
        worst = max(streams, key=lambda stream: max(stream["gap"], stream["tail"]))
        print(
            f"  worst stream: {worst['frames']} frames, longest gap {worst['gap'] / 1000:.2f} s, "
            f"last frame -> end {worst['tail'] / 1000:.2f} s, ended by {worst['ended']}"
        )
    print(
        f"CPU while moving ({timed:.0f} s, in cores): browsers {cpu_used[0] / timed:.2f}, "
        f"server {cpu_used[1] / timed:.2f}; browsers per move {cpu_used[0] / max(moves, 1):.2f} s"
    )
    print(f"moves served (first frame came) / made: {len(frames)} / {moves}")
    print(f"server peak RSS: {peak / 2**20:.0f} MB")
    print(
        f"server memory (RSS of its process group): peak {peak / 2**20:.0f} MB, "
        f"last {(memory[-1] if memory else 0) / 2**20:.0f} MB, {len(memory)} samples"
    )
    if peak >= MEMORY_LIMIT:
        failures.append(f"server memory peaked at {peak / 2**30:.2f} GB (limit 3 GB)")
    for failure in failures:
        print("FAIL:", failure)
    print("OK" if not failures else f"{len(failures)} failures")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
