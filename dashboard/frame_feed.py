"""A live stream's frames over one HTTP response of the server's own, not a Streamlit message
each.

Each frame shown as an `st.image` is a message that makes the viewer's browser re-render the
page around it (React and its styling; measured: twice the script time and five times the
layout and paint of a bare page). Eight such pages on the two cores that also serve and render
were most of the delay from a move to its first frame. A feed sends the pictures instead as
length-prefixed JPEGs on one response that a small script on the page reads and paints onto
one `<canvas>` (`paretoscope.dashboard.widgets.live_frames`); the page is left alone.

A page run that follows a job (`paretoscope.dashboard.live`) opens a feed of it: a random token
that names
the job for as long as the run follows it. The route (`FEED_PATH`) sends the job's latest frame
at the rate the page may show (`paretoscope.dashboard.pool.live_shown_rate`, shared by every live
stream),
always the newest one when the viewer's connection was slow, and ends with the job or when the
run closes the feed. The route is added to Streamlit's own server by `install` (called by
`paretoscope.dashboard.serve` before the server starts, through
`paretoscope.dashboard.streamlit_internals`); where it is not (AppTest, a bare ``streamlit run``,
a Streamlit whose routes cannot be edited) pages show frames as `st.image` messages, as
before.

Explore's picture is a *channel* instead (`Feeds.channel`): one feed per session and place,
opened by the page once and kept across its runs, that a run points at the job it follows
(`Feeds.follow`, or None when it shows a stored recording). Its element is drawn the same at
every run, so Streamlit keeps it (its script runs once) and a move's first frame travels on the
open response as soon as it is drawn, instead of after the browser has rendered the run's
messages, run a new script and asked for a new feed (run -> asked: 0.8-1.3 s p50 with eight
viewers, `benchmarks/bench_load.py`; about 0.1 s with the channel).

Framing, big-endian: a 4-byte JPEG length, the frame's 4-byte episode step, the 4-byte episode
(the feed's count of jobs followed: 1 for a page run's feed), the JPEG. A header with no JPEG
is a marker: a channel's new episode (step 1 if it has a job, 0 if the page shows a stored
recording), or, repeated, a keep-alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, NamedTuple

import numpy as np

from paretoscope.dashboard import streamlit_internals as internals
from paretoscope.dashboard.jobs import Job
from paretoscope.dashboard.trace import mark
from paretoscope.jpeg import jpeg_bytes
from paretoscope.pacing.display import MOST, Throttle

FEED_PATH = "/_paretoscope/frames/"
HEADER = struct.Struct(">III")  # JPEG length, episode step, episode
# A feed sleeps until its job or its channel changes (`Job.watch`, `Feed.watch`), or until
# its throttle lets the frame it holds go; it looks again at least this often (seconds), for a
# feed closed meanwhile (`is_open`), which wakes nothing.
LONGEST_SLEEP = 0.25
# A wait between two frames sent that the trace notes (`paretoscope.dashboard.trace`, for
# benchmarks).
SLOW_SECONDS = 0.5
# A feed woken this much later than asked (a new frame, or its throttle's time): the server's
# event loop did not run (the trace notes it, to tell a stalled loop from a stream with nothing
# to send).
LATE_LOOK_SECONDS = 0.2
# Seconds a channel with nothing to send stays silent before a keep-alive (proxies close a
# response that says nothing for a minute or so).
KEEPALIVE_SECONDS = 20.0

_taken = False  # `install` has chained the feed's route onto the server's routes
_served = False  # the server this process runs built its routes with the feed's


class Feed:
    """What one feed sends: a job's frames, for one page run; or, a channel, the frames of
    whichever job its page follows now (`follow`), across the page's runs. `session` is for the
    trace."""

    def __init__(self, job: Job | None, session: str | None, channel: bool = False) -> None:
        self.session = session
        self.channel = channel
        self._lock = threading.Lock()
        self._job = job
        self._episode = 0 if job is None else 1
        self._wake: Callable[[], None] | None = None

    def watch(self, wake: Callable[[], None] | None) -> None:
        """Call `wake()` when the feed follows another job (None: no more)."""
        with self._lock:
            self._wake = wake

    def follow(self, job: Job | None) -> None:
        """Send `job`'s frames from now on (a channel's next episode); None: no job, the page
        shows a stored recording."""
        with self._lock:
            if job is not self._job or job is None:
                self._job = job
                self._episode += 1
            wake = self._wake
        if wake is not None:
            wake()

    def now(self) -> tuple[int, Job | None]:
        """The episode being sent and its job."""
        with self._lock:
            return self._episode, self._job


# A run may close its feed (its episode over, or already recorded) before the browser has
# drawn the run's picture and asked for it. The route answers such a token with an empty
# stream, not 404, for this long after it closed; a token never opened stays unknown.
ENDED_SECONDS = 120.0
# The most ended tokens remembered (each a few dozen bytes).
MOST_ENDED = 10_000


class Feeds:
    """The feeds open now, by token; the channels by session and place; and the tokens
    closed in the last `ENDED_SECONDS`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}
        self._channels: dict[tuple[str, str], str] = {}
        self._ended: dict[str, float] = {}  # token -> when it closed (insertion ordered)

    def open(self, job: Job, session: str | None = None) -> str:
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._feeds[token] = Feed(job, session)
        return token

    def close(self, token: str) -> None:
        with self._lock:
            if self._feeds.pop(token, None) is not None:
                self._ended[token] = time.monotonic()
                self._forget_ended()

    def ended(self, token: str) -> bool:
        """Whether `token` named a feed that closed in the last `ENDED_SECONDS`."""
        with self._lock:
            self._forget_ended()
            return token in self._ended

    def _forget_ended(self) -> None:
        """Drop ended tokens past `ENDED_SECONDS`, and the oldest past `MOST_ENDED` (the
        caller holds the lock)."""
        oldest = time.monotonic() - ENDED_SECONDS
        while self._ended:
            token, when = next(iter(self._ended.items()))
            if when >= oldest and len(self._ended) <= MOST_ENDED:
                break
            del self._ended[token]

    def get(self, token: str) -> Feed | None:
        with self._lock:
            return self._feeds.get(token)

    def channel(self, session: str, place: str, alive: Callable[[str], bool]) -> str:
        """The token of `session`'s channel for `place`: made on first use, the same after.
        Channels of sessions no longer `alive` are closed here."""
        with self._lock:
            for (other, other_place), token in list(self._channels.items()):
                if other != session and not alive(other):
                    del self._channels[other, other_place]
                    self._feeds.pop(token, None)
            known = self._channels.get((session, place))
            if known is not None:
                return known
            token = secrets.token_urlsafe(18)
            self._channels[session, place] = token
            self._feeds[token] = Feed(None, session, channel=True)
            return token

    def follow(self, token: str, job: Job | None) -> None:
        """Point the channel `token` at `job` (None: nothing streams)."""
        feed = self.get(token)
        if feed is not None:
            feed.follow(job)


_feeds = Feeds()


def shared_feeds() -> Feeds:
    """The server's open feeds."""
    return _feeds


def installed() -> bool:
    """Whether this process's Streamlit server serves feeds (`install`, and the server has
    built its routes)."""
    return _served


def frame_bytes(image: np.ndarray | bytes, step: int, episode: int = 1) -> bytes:
    """One frame as the feed sends it: header and JPEG (`image` as it is when it is one
    already: a frame drawn on a cluster node)."""
    jpeg = image if isinstance(image, bytes) else jpeg_bytes(image)
    return HEADER.pack(len(jpeg), int(step), int(episode)) + jpeg


def marker(episode: int, streams: bool) -> bytes:
    """A channel's marker: `episode` begins (`streams`: it has a job), or a keep-alive."""
    return HEADER.pack(0, int(streams), int(episode))


class Sent(NamedTuple):
    """One frame (or marker: no JPEG) of a feed's body."""

    episode: int
    step: int
    jpeg: bytes


def read_frames(data: bytes) -> list[Sent]:
    """The frames and markers in `data`, a feed's whole body; a cut-off last frame is left
    out."""
    frames = []
    offset = 0
    while offset + HEADER.size <= len(data):
        size, step, episode = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + size
        if end > len(data):
            break
        frames.append(Sent(episode, step, data[offset + HEADER.size : end]))
        offset = end
    return frames


class _Alarm:
    """Wakes a feed's coroutine: rung from any thread (a job's new state, a channel's new job)
    or by the feed's own timer."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self._rung: float | None = None  # when first rung since the last sleep ended

    def ring(self) -> None:
        if self._rung is None:
            self._rung = time.monotonic()
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody sleeps
            self._loop.call_soon_threadsafe(self._event.set)

    async def sleep(self, seconds: float) -> float:
        """Until rung or `seconds` have passed; returns how much later than that it woke (the
        event loop's lag)."""
        due = time.monotonic() + seconds
        timer = self._loop.call_later(seconds, self._event.set)
        try:
            await self._event.wait()
        finally:
            timer.cancel()
        now = time.monotonic()
        if self._rung is not None:
            due = min(due, self._rung)
        self._event.clear()  # before the caller looks: a ring from now on is not lost
        self._rung = None
        return max(0.0, now - due)


async def feed_frames(
    feed: Feed,
    is_open: Callable[[], bool],
    rate: Callable[[], float],
    throttle: Throttle | None = None,
) -> AsyncIterator[bytes]:
    """What `feed` sends: its job's newest frame when the page may show one (`rate()` a
    second), the last frame always; a page run's feed ends with its job, a channel begins each
    episode with a marker and goes on until `is_open()` turns false. Between frames it sleeps
    until the job or the channel changes (no looking every few milliseconds: eight viewers'
    feeds did so 400 times a second on the server's event loop)."""
    throttle = throttle or Throttle(MOST)
    alarm = _Alarm()
    episode, job = -1, None
    unwatch: Callable[[], None] | None = None
    seen = 0
    pending: Any = None
    first = True
    sent = quiet = time.monotonic()
    feed.watch(alarm.ring)
    try:
        while is_open():
            current = feed.now()
            if current[0] != episode:  # a channel's page moved on: its next job from now
                episode, job = current
                if unwatch is not None:
                    unwatch()
                unwatch = None if job is None else job.watch(alarm.ring)
                seen, pending, first = 0, None, True
                mark("asked", session=feed.session)  # the feed begins this episode's frames
                if feed.channel:
                    quiet = time.monotonic()
                    yield marker(episode, job is not None)
            state = None if job is None else job.wait(seen, None, timeout=0)
            if state is not None and state.frames != seen and state.latest is not None:
                seen = state.frames
                if getattr(state.latest, "image", None) is not None:
                    pending = state.latest
            if pending is not None:
                throttle.rate = rate()  # asked only with a frame to send: takes the gate's lock
            done = state is not None and state.done
            last = done or (pending is not None and getattr(pending.record, "done", False))
            if pending is not None and (last or throttle.ready()):
                frame, pending = pending, None
                if isinstance(frame.image, bytes):  # a JPEG already (a cluster's): framed here
                    data = frame_bytes(frame.image, frame.record.step, episode)
                else:  # encoded off the event loop
                    data = await asyncio.to_thread(
                        frame_bytes, frame.image, frame.record.step, episode
                    )
                now = time.monotonic()
                if first:
                    mark("frame", session=feed.session)
                    first = False
                elif now - sent > SLOW_SECONDS:
                    mark("slow frame", session=feed.session, seconds=round(now - sent, 3))
                sent = quiet = now
                yield data
                continue  # look again at once: a frame may have come meanwhile
            if done and pending is None and not feed.channel:
                return
            if feed.channel and time.monotonic() - quiet > KEEPALIVE_SECONDS:
                quiet = time.monotonic()
                yield marker(episode, job is not None)
            # A frame held back waits for the throttle; else the next change (or a last look).
            wait = LONGEST_SLEEP if pending is None else min(LONGEST_SLEEP, throttle.delay())
            if feed.channel:  # or its next keep-alive
                wait = min(wait, quiet + KEEPALIVE_SECONDS - time.monotonic())
            late = await alarm.sleep(max(wait, 0.001))
            if late > LATE_LOOK_SECONDS:
                mark("late look", session=feed.session, seconds=round(late, 3))
    finally:
        feed.watch(None)
        if unwatch is not None:
            unwatch()


def _base_path() -> str:
    """The server's base URL path (``server.baseUrlPath``), as "/base" or ""."""
    import streamlit as st

    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


def feed_url(token: str) -> str:
    """Where a page fetches the feed `token`."""
    return f"{_base_path()}{FEED_PATH}{token}"


def feed_route() -> Any:
    """The server's route that serves feeds: ``GET [base]FEED_PATH{token}``."""
    from paretoscope.dashboard.pool import live_shown_rate

    def open_feed(token: str) -> AsyncIterator[bytes] | None:
        feed = _feeds.get(token)
        if feed is None:
            return _nothing() if _feeds.ended(token) else None
        return feed_frames(feed, lambda: _feeds.get(token) is feed, live_shown_rate)

    return internals.byte_stream_route(
        _base_path() + FEED_PATH + "{token}", open_feed, "no such live stream (it ended)"
    )


async def _nothing() -> AsyncIterator[bytes]:
    """The stream of a feed that ended before it was asked for: no frame (the page keeps what
    it shows)."""
    return
    yield  # an async generator with nothing to send


def _with_feed_route(routes: list[Any]) -> list[Any]:
    global _served
    _served = True
    return [feed_route(), *routes]  # before Streamlit's catch-all for its frontend's files


def install() -> bool:
    """Add the feed route to the Streamlit server this process will start. False, and pages
    keep `st.image` frames, where this Streamlit's routes cannot be edited
    (`streamlit_internals.SERVER_ROUTES`)."""
    global _taken
    if not _taken:
        _taken = internals.edit_server_routes(_with_feed_route)
    return _taken
