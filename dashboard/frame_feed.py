"""A live stream's frames over one HTTP response of the server's own, not a Streamlit message
each.

Each frame shown as an `st.image` is a message that makes the viewer's browser re-render the
page around it (React and its styling; measured: twice the script time and five times the
layout and paint of a bare page). Eight such pages on the two cores that also serve and render
were most of the delay from a move to its first frame. A feed sends the pictures instead as
length-prefixed JPEGs on one response that a small script on the page reads and paints onto
one `<canvas>` (`dashboard.widgets.live_frames`); the page is left alone.

A page run that follows a job (`dashboard.live`) opens a feed of it: a random token that names
the job for as long as the run follows it. The route (`FEED_PATH`) sends the job's latest frame
at the rate the page may show (`dashboard.pool.live_shown_rate`, shared by every live stream),
always the newest one when the viewer's connection was slow, and ends with the job or when the
run closes the feed. The route is added to Streamlit's own server by `install` (called by
`dashboard.serve` before the server starts); where it is not (AppTest, a bare
``streamlit run``) pages show frames as `st.image` messages, as before.

Framing, big-endian: a 4-byte JPEG length, the frame's 4-byte episode step, the JPEG.
"""

from __future__ import annotations

import asyncio
import io
import secrets
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.pacing.display import MOST, Throttle
from dashboard.jobs import Job
from dashboard.trace import mark

FEED_PATH = "/_paretoscope/frames/"
HEADER = struct.Struct(">II")  # JPEG length, episode step
JPEG_QUALITY = 90  # what `st.image` uses for an array
# Seconds between two looks at a job for a new frame: the most a frame waits to be sent.
POLL_SECONDS = 0.02
# A wait between two frames sent that the trace notes (`dashboard.trace`, for benchmarks).
SLOW_SECONDS = 0.5

_installed = False


@dataclass(frozen=True)
class Feed:
    """A job's frames, for one page run (`session` for the trace)."""

    job: Job
    session: str | None


class Feeds:
    """The feeds open now, by token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}

    def open(self, job: Job, session: str | None = None) -> str:
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._feeds[token] = Feed(job, session)
        return token

    def close(self, token: str) -> None:
        with self._lock:
            self._feeds.pop(token, None)

    def get(self, token: str) -> Feed | None:
        with self._lock:
            return self._feeds.get(token)


_feeds = Feeds()


def shared_feeds() -> Feeds:
    """The server's open feeds."""
    return _feeds


def installed() -> bool:
    """Whether this process's Streamlit server serves feeds (`install`)."""
    return _installed


def frame_bytes(image: Any, step: int) -> bytes:
    """One frame as the feed sends it: header and JPEG."""
    from PIL import Image

    picture = Image.fromarray(np.ascontiguousarray(np.asarray(image, dtype=np.uint8)))
    buffer = io.BytesIO()
    picture.convert("RGB").save(buffer, format="JPEG", quality=JPEG_QUALITY)
    jpeg = buffer.getvalue()
    return HEADER.pack(len(jpeg), int(step)) + jpeg


def read_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (step, JPEG) frames in `data`, a feed's whole body; a cut-off last frame is left
    out."""
    frames = []
    offset = 0
    while offset + HEADER.size <= len(data):
        size, step = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + size
        if end > len(data):
            break
        frames.append((step, data[offset + HEADER.size : end]))
        offset = end
    return frames


async def feed_frames(
    feed: Feed,
    is_open: Callable[[], bool],
    rate: Callable[[], float],
    throttle: Throttle | None = None,
) -> AsyncIterator[bytes]:
    """The job's frames as the feed sends them: the newest frame when the page may show one
    (`rate()` a second), the last frame always, until the job ends or `is_open()` turns
    false."""
    throttle = throttle or Throttle(MOST)
    mark("asked", session=feed.session)  # the page's script asked for the frames
    seen = 0
    pending: Any = None
    first = True
    sent = time.monotonic()
    while is_open():
        state = feed.job.wait(seen, None, timeout=0)
        if state.frames != seen and state.latest is not None:
            seen = state.frames
            if getattr(state.latest, "image", None) is not None:
                pending = state.latest
        if pending is not None:
            throttle.rate = rate()  # asked only with a frame to send: it takes the gate's lock
        last = state.done or (pending is not None and getattr(pending.record, "done", False))
        if pending is not None and (last or throttle.ready()):
            frame, pending = pending, None
            data = await asyncio.to_thread(frame_bytes, frame.image, frame.record.step)
            now = time.monotonic()
            if first:
                mark("frame", session=feed.session)
                first = False
            elif now - sent > SLOW_SECONDS:
                mark("slow frame", session=feed.session, seconds=round(now - sent, 3))
            sent = now
            yield data
        if state.done and pending is None:
            return
        await asyncio.sleep(POLL_SECONDS)


def _base_path() -> str:
    """The server's base URL path (``server.baseUrlPath``), as "/base" or ""."""
    from streamlit import config

    base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


def feed_url(token: str) -> str:
    """Where a page fetches the feed `token`."""
    return f"{_base_path()}{FEED_PATH}{token}"


def feed_route() -> Any:
    """The Starlette route that serves feeds: ``GET [base]FEED_PATH{token}``."""
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    from dashboard.pool import live_shown_rate

    async def serve(request: Request) -> Response:
        token = request.path_params["token"]
        feed = _feeds.get(token)
        if feed is None:
            return PlainTextResponse("no such live stream (it ended)", status_code=404)
        return StreamingResponse(
            feed_frames(feed, lambda: _feeds.get(token) is feed, live_shown_rate),
            media_type="application/octet-stream",
            # Not compressed (JPEGs do not shrink, and a compressor would hold frames back),
            # not cached, not sniffed.
            headers={
                "Cache-Control": "no-store",
                "Content-Encoding": "identity",
                "X-Content-Type-Options": "nosniff",
            },
        )

    return Route(_base_path() + FEED_PATH + "{token}", serve, methods=["GET"])


def install() -> bool:
    """Add the feed route to the Streamlit server this process will start (Streamlit's own
    routes are made by `create_streamlit_routes`; ours goes before its catch-all for static
    files). False, and pages keep `st.image` frames, where this Streamlit has no such hook."""
    global _installed
    if _installed:
        return True
    try:
        from streamlit.web.server.starlette import starlette_app
    except ImportError:
        return False
    streamlit_routes = getattr(starlette_app, "create_streamlit_routes", None)
    if streamlit_routes is None:
        return False

    def with_feeds(runtime: Any) -> list[Any]:
        return [feed_route(), *streamlit_routes(runtime)]

    starlette_app.create_streamlit_routes = with_feeds
    _installed = True
    return True
