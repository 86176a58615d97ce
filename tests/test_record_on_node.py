"""What a cluster's actor runs for one episode (`paretoscope.cluster.recorders.record_on_node`),
here without Ray: a live episode paced as the relaying server asked (`LivePace`), no more frames
than its pages show, the video holding the rest; without a pace (a resumed stream, a test),
every frame, the plain recording's."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from paretoscope.cluster.recorders import LivePace, record_on_node
from paretoscope.pacing.gate import FrameGate
from paretoscope.pacing.scheduler import FrameScheduler
from paretoscope.recordings import EpisodeRequest, LiveFrame
from paretoscope.rollout import StepRecord
from tests.agents_for_tests import LinearAgent, episode_of

CHEETAH = "MO-HalfCheetah-v2"
FPS = 20.0  # HalfCheetah's video with every frame step drawn
MOST_RATE = FPS  # a page showing every frame: every frame is drawn


def _request(agent: LinearAgent, horizon: int) -> EpisodeRequest:
    return episode_of(agent, horizon, preference=(0.4, 0.6), seed=2, size=48)


def test_without_a_pace_every_frame_is_the_plain_recordings() -> None:
    agent = LinearAgent(CHEETAH, seed=5)
    request = _request(agent, horizon=12)
    truth: list[LiveFrame] = []
    plain = request.record([agent], truth.append)
    frames: list[LiveFrame] = []
    recording = record_on_node(request, [agent], frames.append, lambda: None, None)
    assert [frame.index for frame in frames] == list(range(plain.length))
    for frame, expected in zip(frames, truth, strict=True):
        np.testing.assert_array_equal(frame.image, expected.image)
    np.testing.assert_array_equal(recording.rewards, plain.rewards)


def test_a_paced_episode_draws_no_more_than_its_pages_show_and_holds_the_rest() -> None:
    agent = LinearAgent(CHEETAH, seed=5)
    request = _request(agent, horizon=40)
    plain = request.record([agent])
    shown: list[tuple[int, float]] = []
    started = time.monotonic()

    def on_frame(frame: LiveFrame) -> None:
        shown.append((frame.index, time.monotonic() - started))

    rate = 5.0  # frames a second the pages show: every 4th of a 20 fps video
    recording = record_on_node(request, [agent], on_frame, lambda: None, LivePace(rate, False))
    indices = [index for index, _ in shown]
    last = plain.length - 1
    assert indices[0] == 0 and indices[-1] == last
    stride = math.floor(FPS / rate)
    # Every 4th frame (more apart where the node fell behind), and the last whatever it is.
    assert all(later - earlier >= stride for earlier, later in pairwise(indices[:-1]))
    assert len(indices) <= math.ceil(plain.length / stride) + 1
    # Paced to the video: the last frame not before its time, less the scheduler's lead.
    assert shown[-1][1] >= last / FPS - FrameScheduler(1, time.monotonic).lead - 0.05
    # The recording is the episode's: every frame step, its rewards; the video holds the
    # pictures not drawn.
    np.testing.assert_array_equal(recording.frame_steps, plain.frame_steps)
    np.testing.assert_allclose(recording.rewards, plain.rewards, rtol=1e-12, atol=1e-12)
    assert recording.meta["held_frames"] == plain.length - len(indices)


def test_the_pace_says_whether_frames_are_anti_aliased() -> None:
    """The frames a paced actor draws are those a server's own live stream draws with the same
    choice (`record_live`'s `smooth`), and the two choices draw different pictures."""
    agent = LinearAgent(CHEETAH, seed=5)
    request = _request(agent, horizon=6)
    pictures: dict[bool, dict[int, np.ndarray]] = {}
    for smooth in (True, False):
        on_node: dict[int, np.ndarray] = {}
        record_on_node(
            request,
            [agent],
            lambda frame, into=on_node: into.__setitem__(frame.index, frame.image),
            lambda: None,
            LivePace(12.0, smooth),
        )
        here: dict[int, np.ndarray] = {}
        gate = FrameGate(FrameScheduler(1, time.monotonic, budget=lambda: 12.0))
        request.record_live(
            [agent],
            gate,
            lambda frame, into=here: into.__setitem__(frame.index, frame.image),
            lambda: None,
            smooth=smooth,
        )
        common = sorted(set(on_node) & set(here))
        assert common and common[0] == 0
        for index in common:
            np.testing.assert_array_equal(on_node[index], here[index])
        pictures[smooth] = on_node
    assert not np.array_equal(pictures[True][0], pictures[False][0])


def test_a_live_episode_resumed_mid_way_draws_the_resumed_frame_first() -> None:
    """A stream resumed at a frame past 30 (its actor was lost): the first frame drawn and shown
    is that one, the picture the episode drawn from its start at the same pace shows there; the
    frames before it are simulated, not drawn (the video holds its picture over them), and the
    returns are the episode's."""
    agent = LinearAgent(CHEETAH, seed=9)
    request = _request(agent, horizon=60)
    pace = LivePace(MOST_RATE, smooth=False)
    plain = request.record([agent])
    from_start: list[LiveFrame] = []
    record_on_node(request, [agent], from_start.append, lambda: None, pace)
    first = next(frame.index for frame in from_start if frame.index >= 30)  # one it drew
    resumed: list[LiveFrame] = []
    recording = record_on_node(request, [agent], resumed.append, lambda: None, pace, first)
    assert resumed[0].index == first and resumed[-1].index == plain.length - 1
    drawn_there = next(frame.image for frame in from_start if frame.index == first)
    np.testing.assert_array_equal(resumed[0].image, drawn_there)
    assert resumed[0].record.step == plain.frame_steps[0][first]
    assert recording.meta["held_frames"] >= first
    np.testing.assert_array_equal(recording.frame_steps, plain.frame_steps)
    np.testing.assert_allclose(recording.rewards, plain.rewards, rtol=1e-12, atol=1e-12)


def test_an_actor_warmed_with_a_request_draws_its_first_episode_on_a_kept_renderer() -> None:
    """`_RecordingActor.warm` draws one frame and stops, anti-aliased and not (which one a live
    episode asks for depends on the crowd it starts in); the renderers it made are kept, and
    the actor's next episodes of that env and size (another preference, another seed, either
    quality) make none."""
    from paretoscope.cluster.recorders import _RecordingActor
    from paretoscope.render.warm import warm_renderers

    agent = LinearAgent(CHEETAH, seed=8)
    actor = _RecordingActor()
    warmed = replace(_request(agent, horizon=30), size=40)  # a size no other test draws
    made = warm_renderers().made
    actor.warm(warmed, LivePace(12.0, smooth=True), agent)
    assert warm_renderers().made == made + 2
    episode = replace(warmed, preference=(0.9, 0.1), seed=11, horizon=20)
    for smooth in (False, True):
        frames: list[LiveFrame] = []
        pace = LivePace(12.0, smooth=smooth)
        recording = record_on_node(episode, [agent], frames.append, lambda: None, pace)
        assert frames[0].index == 0 and recording.length == 20
    assert warm_renderers().made == made + 2


def test_an_actor_that_skips_ahead_still_streams_its_frames() -> None:
    """A paced recording that fell behind skips to the frame due now, far past the last one a
    stream took: the actor's bound on what it keeps ahead counts frames, not frame numbers
    (counted in numbers, the recording waited for frames nobody could take, and its stream
    stalled until its patience ran out)."""
    from paretoscope.cluster.recorders import FRAMES_AHEAD

    numbers = [0, 1, 2, 3 + 5 * FRAMES_AHEAD, 4 + 5 * FRAMES_AHEAD]
    items = _stream_of([LiveFrame(None, (), number) for number in numbers])
    assert [item.index for kind, item in items if kind == "frame"] == numbers
    assert items[-1] == ("recording", "the recording")


def test_a_stream_sends_the_simulated_episode_once() -> None:
    """A live recording's frames after its simulation ended each carry the whole episode's frame
    steps (`LiveFrame.episode`); a stream sends them with the first such frame only (the
    relaying server puts them back: `tests/test_cluster_recorders.py`)."""
    whole = (_step(1), _step(2))
    frames = [LiveFrame(None, (), 0), *(LiveFrame(None, (), index, whole) for index in (1, 2, 3))]
    items = _stream_of(frames)
    sent = [item.episode for kind, item in items if kind == "frame"]
    assert sent == [None, whole, None, None]


def _step(step: int) -> StepRecord:
    values = np.full(2, float(step))
    return StepRecord(step, values, values, values, values, values, False, False, False)


def _stream_of(frames: list[LiveFrame]) -> list[tuple[str, Any]]:
    """What an actor's stream sends for a recording that gives `frames` (its key: its
    frames' numbers), here without Ray; fails when the stream stalls."""
    from paretoscope.cluster.recorders import _RecordingActor

    key = "frames " + " ".join(str(frame.index) for frame in frames)

    class Giving:
        def key(self) -> str:
            return key

        def record(self, agents: object, on_frame: Callable[[LiveFrame], None]) -> str:
            for frame in frames:
                on_frame(frame)
            return "the recording"

    actor = _RecordingActor()
    items: list[tuple[str, Any]] = []
    stream = actor.follow(key, Giving(), 0, 0, None, None)  # type: ignore[arg-type]
    reader = threading.Thread(target=lambda: items.extend(stream), daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():
        actor.stop(key)  # frees the waiting recording, and the reader with it
        pytest.fail(f"the stream stalled after {items}")
    return items
