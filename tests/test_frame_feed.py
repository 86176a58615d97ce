"""The live frame feed (`paretoscope.dashboard.frame_feed`): its framing against PIL's own
decoding, what it
sends of a job (the newest frame when the page may show one, the last always, nothing once
closed), a channel's episodes (each begun by a marker, only the job followed now sent, kept
alive while idle), and its route driven as an ASGI app (no HTTP client needed)."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from PIL import Image

from paretoscope.dashboard.frame_feed import (
    FEED_PATH,
    HEADER,
    Feed,
    Feeds,
    feed_frames,
    feed_route,
    feed_url,
    frame_bytes,
    marker,
    read_frames,
    shared_feeds,
)
from paretoscope.dashboard.jobs import Job, JobBoard
from paretoscope.jpeg import jpeg_bytes
from paretoscope.pacing.display import Throttle
from tests.asgi_client import Answer, Client, run_in_thread
from tests.waiting import wait_until


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
            time.sleep(interval)  # a producer's pace between frames (what a reader must follow)
            on_frame(_Frame(_picture(step), _Record(step, step == steps)))
        return "recorded"

    return JobBoard().follow(f"job-{steps}-{interval}", produce, lambda _: None)


def _collect(feed: Feed, is_open: Any = lambda: True, throttle: Throttle | None = None) -> bytes:
    async def gather() -> bytes:
        chunks = [chunk async for chunk in feed_frames(feed, is_open, lambda: 12.0, throttle)]
        return b"".join(chunks)

    return run_in_thread(asyncio.wait_for(gather(), timeout=20))


def test_a_frame_is_its_step_and_a_jpeg_of_the_picture() -> None:
    picture = np.zeros((40, 64, 3), np.uint8)
    picture[:, 32:] = (200, 40, 10)
    data = frame_bytes(picture, 321) + frame_bytes(_picture(2), 2)
    frames = read_frames(data)
    assert [(frame.episode, frame.step) for frame in frames] == [(1, 321), (1, 2)]
    decoded = np.asarray(Image.open(io.BytesIO(frames[0].jpeg)).convert("RGB"), dtype=float)
    assert decoded.shape == picture.shape
    assert np.abs(decoded - picture).mean() < 3.0  # JPEG's loss, not another picture
    size, step, episode = HEADER.unpack_from(data, 0)
    assert (step, episode) == (321, 1) and len(frames[0].jpeg) == size
    # A frame cut off by the end of what arrived is not a frame yet.
    assert [frame.step for frame in read_frames(data[:-1])] == [321]


def test_a_frame_that_is_a_jpeg_already_is_sent_as_it_is() -> None:
    """A cluster node's frame (`paretoscope.cluster.recorders`) is not encoded again."""
    jpeg = jpeg_bytes(_picture(3), quality=60)
    (sent,) = read_frames(frame_bytes(jpeg, 7, episode=2))
    assert (sent.jpeg, sent.step, sent.episode) == (jpeg, 7, 2)
    assert sent.jpeg != read_frames(frame_bytes(_picture(3), 7))[0].jpeg  # the feed's quality


def test_the_feed_sends_the_newest_frame_it_may_and_always_the_last() -> None:
    """With the page's clock stopped, the throttle allows one frame: the first one the feed
    sees. Then only the job's last frame, once it is done."""
    job = _job_of(30, interval=0.01)
    frozen = Throttle(12.0, clock=lambda: 0.0)
    steps = [frame.step for frame in read_frames(_collect(Feed(job, None), throttle=frozen))]
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
            steps += [frame.step for frame in read_frames(chunk)]
            sent.release()
        return steps

    assert run_in_thread(asyncio.wait_for(gather(), timeout=20)) == [1, 2, 3, 4, 5]
    job.unsubscribe()


def test_a_job_wakes_its_watchers_at_each_change_and_a_failing_one_stops_nothing() -> None:
    woken: list[float] = []
    release = threading.Event()

    def produce(on_frame: Any, on_wait: Any) -> str:
        release.wait(10)
        for step in (1, 2):
            on_frame(_Frame(_picture(step), _Record(step, step == 2)))
        return "recorded"

    job = JobBoard().follow("watched", produce, lambda _: None)

    def broken() -> None:
        raise RuntimeError("event loop is closed")

    job.watch(broken)
    unwatch = job.watch(lambda: woken.append(time.monotonic()))
    release.set()
    state = job.wait(0, None, timeout=10)
    while not state.done:
        state = job.wait(state.frames, None, timeout=10)
    assert state.result == "recorded" and state.error is None
    assert len(woken) == 3  # each frame, then the end
    unwatch()
    job.unsubscribe()
    assert len(woken) == 3


def test_a_feed_wakes_for_each_frame_and_each_move_without_looking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With its last-resort look an hour away, a channel still sends a new job's marker and
    frames as they come: the job and the channel wake it."""
    from paretoscope.dashboard import frame_feed

    monkeypatch.setattr(frame_feed, "LONGEST_SLEEP", 3600.0)
    step_now = threading.Semaphore(0)

    def produce(on_frame: Any, on_wait: Any) -> None:
        for step in range(1, 4):
            step_now.acquire(timeout=10)
            on_frame(_Frame(_picture(step), _Record(step, step == 3)))

    job = JobBoard().follow("woken", produce, lambda _: None)
    channel = Feed(None, None, channel=True)
    steps: list[int] = []

    async def gather() -> None:
        async for chunk in feed_frames(channel, lambda: True, lambda: 1e9, Throttle(1e9)):
            for frame in read_frames(chunk):
                if not frame.jpeg and frame.episode == 0:
                    threading.Thread(target=channel.follow, args=(job,)).start()
                elif frame.jpeg:
                    steps.append(frame.step)
                    if frame.step == 3:
                        return
                if frame.episode == 1 or frame.jpeg:
                    step_now.release()  # the next frame comes only after this one went

    started = time.monotonic()
    run_in_thread(asyncio.wait_for(gather(), timeout=20))
    assert steps == [1, 2, 3] and time.monotonic() - started < 10
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
    opened = feeds.get(first)
    assert opened is not None and opened.now() == (1, job) and not opened.channel
    feeds.close(first)
    assert feeds.get(first) is None and feeds.get(second) is not None
    feeds.close(second)
    job.unsubscribe()


def test_a_page_runs_feed_sends_no_markers() -> None:
    job = _job_of(3)
    sent = read_frames(_collect(Feed(job, None), throttle=Throttle(1e9)))
    assert all(frame.jpeg for frame in sent) and {frame.episode for frame in sent} == {1}
    job.unsubscribe()


def test_a_channel_sends_the_job_its_page_follows_now_each_episode_begun_by_a_marker() -> None:
    """The page follows a job, then (a move) another, then shows a stored recording: each
    episode begins with a marker (with a job or not), and after a marker only the new job's
    frames come, numbered with its episode."""
    first, second = _job_of(3), _job_of(2)
    channel = Feed(None, None, channel=True)
    body: list[bytes] = []
    finished = threading.Event()
    failures: list[BaseException] = []

    def page() -> None:
        def until(condition: Any, what: str) -> None:
            wait_until(lambda: condition(read_frames(b"".join(body))), 10, what)

        try:
            until(lambda frames: [frame.episode for frame in frames] == [0], "the first marker")
            channel.follow(first)
            until(lambda frames: any(frame.step == 3 for frame in frames), "the first job's end")
            channel.follow(second)
            until(
                lambda frames: any(frame.episode == 2 and frame.step == 2 for frame in frames),
                "the second job's end",
            )
            channel.follow(None)
            until(lambda frames: frames and frames[-1].episode == 3, "the last marker")
        except AssertionError as failure:
            failures.append(failure)
        finally:
            finished.set()

    async def gather() -> None:
        async for chunk in feed_frames(channel, lambda: not finished.is_set(), lambda: 1e9):
            body.append(chunk)

    helper = threading.Thread(target=page)
    helper.start()
    run_in_thread(asyncio.wait_for(gather(), timeout=20))
    helper.join()
    assert not failures, failures
    sent = [(frame.episode, frame.step, bool(frame.jpeg)) for frame in read_frames(b"".join(body))]
    markers = [(episode, step) for episode, step, picture in sent if not picture]
    assert markers == [(0, 0), (1, 1), (2, 1), (3, 0)]
    pictures = [(episode, step) for episode, step, picture in sent if picture]
    assert pictures[-1] == (2, 2) and [e for e, _ in pictures] == sorted(e for e, _ in pictures)
    assert (1, 3) in pictures and {e for e, _ in pictures} == {1, 2}
    assert sent.index((2, 1, False)) < min(sent.index((2, s, True)) for e, s in pictures if e == 2)
    first.unsubscribe()
    second.unsubscribe()


def test_an_idle_channel_is_kept_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.dashboard import frame_feed

    monkeypatch.setattr(frame_feed, "KEEPALIVE_SECONDS", 0.05)
    channel = Feed(None, None, channel=True)
    stop = time.monotonic() + 0.5
    body = _collect(channel, is_open=lambda: time.monotonic() < stop)
    assert body == marker(0, streams=False) * (len(body) // HEADER.size)
    assert len(body) // HEADER.size >= 4  # the first marker, then one every 0.05 s


def test_a_session_has_one_channel_a_place_and_gone_sessions_lose_theirs() -> None:
    feeds = Feeds()
    alive = {"a", "b"}
    token = feeds.channel("a", "episode", alive.__contains__)
    assert feeds.channel("a", "episode", alive.__contains__) == token
    other = feeds.channel("b", "episode", alive.__contains__)
    assert other != token and feeds.channel("a", "front", alive.__contains__) != token
    channel = feeds.get(token)
    assert channel is not None and channel.channel and channel.now() == (0, None)
    job = _job_of(1)
    feeds.follow(token, job)
    assert channel.now() == (1, job)
    feeds.follow(token, job)  # the same job again (a rerun): the same episode
    assert channel.now() == (1, job)
    alive.discard("b")
    feeds.channel("a", "episode", alive.__contains__)
    assert feeds.get(other) is None and feeds.get(token) is channel
    job.unsubscribe()


def _call(path: str) -> Answer:
    """The feed route's answer to ``GET path``."""
    from starlette.applications import Starlette

    return Client(Starlette(routes=[feed_route()])).get(path)


def test_the_route_serves_an_open_feed_uncompressed_and_uncached() -> None:
    job = _job_of(4)
    token = shared_feeds().open(job)
    try:
        assert feed_url(token) == FEED_PATH + token
        status, headers, body = _call(feed_url(token))
    finally:
        shared_feeds().close(token)
        job.unsubscribe()
    assert status == 200
    assert headers["content-type"] == "application/octet-stream"
    assert headers["content-encoding"] == "identity" and headers["cache-control"] == "no-store"
    assert read_frames(body)[-1].step == 4


@pytest.mark.parametrize("token", ["not-a-feed", "..%2F..%2Fetc%2Fpasswd"])
def test_the_route_answers_404_for_a_feed_that_is_not_open(token: str) -> None:
    status, _, body = _call(FEED_PATH + token)
    assert status == 404 and b"no such live stream" in body


def test_a_feed_closed_before_it_was_asked_for_is_an_empty_stream_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A run may end its feed before the browser has drawn the run's picture and asked for it:
    # that is no error (no 404 in the viewer's console), while a token never opened stays one.
    from paretoscope.dashboard import frame_feed

    job = _job_of(2)
    token = shared_feeds().open(job)
    shared_feeds().close(token)
    job.unsubscribe()
    assert _call(FEED_PATH + token)[0::2] == (200, b"")
    monkeypatch.setattr(frame_feed, "ENDED_SECONDS", 0.0)  # its while is over
    status, _, body = _call(FEED_PATH + token)
    assert status == 404 and b"no such live stream" in body


def test_the_ended_tokens_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.dashboard import frame_feed

    monkeypatch.setattr(frame_feed, "MOST_ENDED", 3)
    feeds, job = Feeds(), _job_of(1)
    tokens = [feeds.open(job) for _ in range(5)]
    for token in tokens:
        feeds.close(token)
    job.unsubscribe()
    assert [feeds.ended(token) for token in tokens] == [False, False, True, True, True]
