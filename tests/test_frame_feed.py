"""The live frame feed (`dashboard.frame_feed`): its framing against PIL's own decoding, what it
sends of a job (the newest frame when the page may show one, the last always, nothing once
closed), and its route driven as an ASGI app (no HTTP client needed)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from PIL import Image

from core.pacing.display import Throttle
from dashboard.frame_feed import (
    FEED_PATH,
    HEADER,
    Feed,
    Feeds,
    feed_frames,
    feed_route,
    feed_url,
    frame_bytes,
    read_frames,
    shared_feeds,
)
from dashboard.jobs import Job, JobBoard


@dataclass(frozen=True)
class _Record:
    step: int
    done: bool = False


@dataclass(frozen=True)
class _Frame:
    image: np.ndarray
    record: _Record


def _picture(step: int, size: int = 48) -> np.ndarray:
    """A picture that says its step: a flat grey level."""
    return np.full((size, size, 3), (step * 7) % 256, np.uint8)


def _job_of(steps: int, interval: float = 0.0) -> Job:
    """A job that gives `steps` frames, `interval` s apart (the last marked done)."""

    def produce(on_frame: Any, on_wait: Any) -> str:
        for step in range(1, steps + 1):
            time.sleep(interval)
            on_frame(_Frame(_picture(step), _Record(step, step == steps)))
        return "recorded"

    return JobBoard().follow(f"job-{steps}-{interval}", produce, lambda _: None)


def _run(coroutine: Any) -> Any:
    """`asyncio.run(coroutine)` in a thread of its own: a browser test's Playwright may hold a
    running event loop in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _collect(feed: Feed, is_open: Any = lambda: True, throttle: Throttle | None = None) -> bytes:
    async def gather() -> bytes:
        chunks = [chunk async for chunk in feed_frames(feed, is_open, lambda: 12.0, throttle)]
        return b"".join(chunks)

    return _run(asyncio.wait_for(gather(), timeout=20))


def test_a_frame_is_its_step_and_a_jpeg_of_the_picture() -> None:
    picture = np.zeros((40, 64, 3), np.uint8)
    picture[:, 32:] = (200, 40, 10)
    data = frame_bytes(picture, 321) + frame_bytes(_picture(2), 2)
    frames = read_frames(data)
    assert [step for step, _ in frames] == [321, 2]
    decoded = np.asarray(Image.open(io.BytesIO(frames[0][1])).convert("RGB"), dtype=float)
    assert decoded.shape == picture.shape
    assert np.abs(decoded - picture).mean() < 3.0  # JPEG's loss, not another picture
    size, step = HEADER.unpack_from(data, 0)
    assert step == 321 and len(frames[0][1]) == size
    # A frame cut off by the end of what arrived is not a frame yet.
    assert [step for step, _ in read_frames(data[:-1])] == [321]


def test_the_feed_sends_the_newest_frame_it_may_and_always_the_last() -> None:
    """With the page's clock stopped, the throttle allows one frame: the first one the feed
    sees. Then only the job's last frame, once it is done."""
    job = _job_of(30, interval=0.01)
    frozen = Throttle(12.0, clock=lambda: 0.0)
    steps = [step for step, _ in read_frames(_collect(Feed(job, None), throttle=frozen))]
    assert len(steps) == 2 and steps[0] < 30 and steps[-1] == 30, steps
    job.unsubscribe()


def test_the_feed_sends_every_frame_when_the_page_may_show_them_all() -> None:
    """A job that gives a frame only after the last was sent: with a free throttle, each one is
    sent, in order, and the response ends with the job."""
    sent = threading.Semaphore(0)

    def produce(on_frame: Any, on_wait: Any) -> None:
        for step in range(1, 6):
            on_frame(_Frame(_picture(step), _Record(step, step == 5)))
            sent.acquire(timeout=10)

    job = JobBoard().follow("paced", produce, lambda _: None)
    free = Throttle(1e9)

    async def gather() -> list[int]:
        steps = []
        async for chunk in feed_frames(Feed(job, None), lambda: True, lambda: 1e9, free):
            steps += [step for step, _ in read_frames(chunk)]
            sent.release()
        return steps

    assert _run(asyncio.wait_for(gather(), timeout=20)) == [1, 2, 3, 4, 5]
    job.unsubscribe()


def test_a_closed_feed_sends_nothing_more() -> None:
    job = _job_of(3)
    assert _collect(Feed(job, None), is_open=lambda: False) == b""
    job.unsubscribe()


def test_tokens_are_unguessable_and_forgotten_when_closed() -> None:
    feeds = Feeds()
    job = _job_of(1)
    first, second = feeds.open(job), feeds.open(job)
    assert first != second and len(first) >= 24
    assert feeds.get(first) == Feed(job, None)
    feeds.close(first)
    assert feeds.get(first) is None and feeds.get(second) is not None
    feeds.close(second)
    job.unsubscribe()


async def _call(path: str) -> tuple[int, dict[str, str], bytes]:
    """The feed route's answer to ``GET path``, driven as an ASGI app."""
    from starlette.applications import Starlette

    app = Starlette(routes=[feed_route()])
    messages: list[dict[str, Any]] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "server": ("testserver", 80),
        "client": ("testclient", 1),
    }
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await done.wait()  # the client never leaves before the answer ends
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    await asyncio.wait_for(app(scope, receive, send), timeout=20)
    start = messages[0]
    headers = {key.decode(): value.decode() for key, value in start["headers"]}
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], headers, body


def test_the_route_serves_an_open_feed_uncompressed_and_uncached() -> None:
    job = _job_of(4)
    token = shared_feeds().open(job)
    try:
        assert feed_url(token) == FEED_PATH + token
        status, headers, body = _run(_call(feed_url(token)))
    finally:
        shared_feeds().close(token)
        job.unsubscribe()
    assert status == 200
    assert headers["content-type"] == "application/octet-stream"
    assert headers["content-encoding"] == "identity" and headers["cache-control"] == "no-store"
    assert read_frames(body)[-1][0] == 4


@pytest.mark.parametrize("token", ["not-a-feed", "..%2F..%2Fetc%2Fpasswd"])
def test_the_route_answers_404_for_a_feed_that_is_not_open(token: str) -> None:
    status, _, body = _run(_call(FEED_PATH + token))
    assert status == 404 and b"no such live stream" in body
