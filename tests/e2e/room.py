"""Viewers driving the Explore page in Chromium, as a room of people would: each moves the
preference slider on a seeded random walk and times, in the page itself, how long the picture
takes to change to the new episode (a streamed frame it had not shown, or the finished video
under a caption naming the new preference), then follows the stream until its video plays.
Shared by the room benchmark (`benchmarks/bench_load.py`) and the fast room check
(`tests/e2e/test_room_check.py`); only what a viewer sees is read."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.e2e.conftest import EPISODE_VIDEO, FRAME_NAME, STREAMED_FRAME

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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def open_sessions(browser, url: str, count: int, size: int, timeout_ms: float = 300_000):  # noqa: ANN001, ANN201 - Playwright's browser; the sessions
    """`count` viewers (a context each) on `url`'s Explore page, each ready: its slider drawn
    (the walk starts from the value it shows) and its first video playable."""
    sessions: list[Session] = []
    for index in range(count):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(f"{url}/?size={size}")
        sessions.append(Session(index, page, random.Random(index)))
    for session in sessions:
        slider = session.page.locator(SLIDER).first  # type: ignore[attr-defined]
        slider.wait_for(state="attached", timeout=timeout_ms)
        # The range input's value: today's Streamlit slider has no aria-valuenow, and a walk
        # that starts from a guessed value waits for captions naming preferences the page never
        # shows (a move back to a seen preference, or an episode's end, then never counts).
        session.value = float(slider.input_value())
        session.step = float(slider.get_attribute("step") or 0.05)
    for session in sessions:
        session.page.wait_for_function(  # type: ignore[attr-defined]
            "() => { const v = document.querySelector('video'); return v && v.readyState >= 2; }",
            timeout=timeout_ms,
        )
    return sessions


def walk(
    sessions: list[Session],
    seconds: float,
    every: tuple[float, float],
    tick: Callable[[], None] = lambda: None,
) -> float:
    """Each session moves its slider every `every` seconds (uniform between the two), once its
    previous move showed its first frame, for `seconds`; returns when the walk started
    (`time.monotonic()`). `tick` runs at each round of reads."""
    ready = time.monotonic()
    end = ready + seconds
    for session in sessions:
        session.next_move = ready + session.rng.uniform(0.0, every[1])
    while time.monotonic() < end:
        now = time.monotonic()
        for session in sessions:
            poll(session)
            waiting_for_frame = session.armed and len(session.first_frames) < session.moves
            if now >= session.next_move and not waiting_for_frame:
                move(session)
                session.next_move = now + session.rng.uniform(*every)
        tick()
        time.sleep(POLL_SECONDS)  # the walk's own pace (the delays are timed in the pages)
    return ready


def finish(sessions: list[Session], timeout: float) -> None:
    """Wait (up to `timeout` s) for every session's last move to end in a playable video, then
    close and keep each session's streams."""
    deadline = time.monotonic() + timeout
    while any(session.armed for session in sessions) and time.monotonic() < deadline:
        for session in sessions:
            poll(session)
        time.sleep(0.1)  # a poll of the pages, until every video played or the deadline
    for session in sessions:
        poll(session)
        session.streams = session.page.evaluate(CLOSE)  # type: ignore[attr-defined]


def lost(sessions: list[Session]) -> list[str]:
    """What a room lost: moves without a first frame, last videos that never played, errors."""
    problems = []
    for session in sessions:
        if len(session.first_frames) < session.moves:
            unserved = session.moves - len(session.first_frames)
            problems.append(
                f"session {session.index}: {unserved} of {session.moves} moves unserved"
            )
        if session.armed:
            problems.append(f"session {session.index}: its last move's video never played")
        for error in sorted(session.errors):
            problems.append(f"session {session.index} shows an error: {error}")
    return problems


def stalls(sessions: list[Session]) -> list[float]:
    """Each stream's worst stall (s): its longest gap between new frames, or its last frame's
    wait for the video, whichever is longer."""
    return [
        max(stream["gap"], stream["tail"]) / 1000.0
        for session in sessions
        for stream in session.streams
    ]
