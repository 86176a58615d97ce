"""Idle pre-rendering and paced live recordings, on real episodes: the same recording as the
plain path, a video made from the live stream however many frames it skipped, the library's
budget kept, and a viewer's own recording never done twice."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents import load
from paretoscope.agents.loaded import LoadedAgent
from paretoscope.dashboard.activity import Activity
from paretoscope.dashboard.prerender import Prerenderer
from paretoscope.pacing.gate import Cancelled, FrameGate
from paretoscope.pacing.scheduler import FrameScheduler
from paretoscope.recordings import EpisodeRequest, RecordingLibrary
from paretoscope.recordings.lanes import LiveFrame
from paretoscope.rollout import rollout_batch
from tests.agents_for_tests import LinearAgent
from tests.apptests import (
    count_episode_recordings,
    episode_returns,
    episode_videos,
    open_app,
    page_ok,
    shown_episode,
)

CHEETAH = "MO-HalfCheetah-v2"


def _request(agent: LinearAgent, preference: float, **changes: object) -> EpisodeRequest:
    values: dict[str, object] = {
        "fingerprint": agent.fingerprint,
        "env_id": CHEETAH,
        "preference": (1.0 - preference, preference),
        "target": None,
        "seed": 3,
        "size": 64,
        "horizon": 24,
        "every": 1,
        "label": "linear",
    }
    values.update(changes)
    return EpisodeRequest(**values)  # type: ignore[arg-type]


def _decoded(video: bytes, tmp_path: Path) -> np.ndarray:
    import imageio.v2 as imageio

    path = tmp_path / f"{abs(hash(video))}.mp4"
    path.write_bytes(video)
    return np.stack([frame for frame in imageio.get_reader(str(path), "ffmpeg").iter_data()])


def _gate(workers: int = 2, lead: float = 0.5, late: float = 0.25) -> FrameGate:
    scheduler = FrameScheduler(workers, time.monotonic, lead=lead, late=late)
    return FrameGate(scheduler, poll_seconds=0.02)


def test_a_live_recording_is_the_plain_recording_paced(tmp_path: Path) -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    request = _request(agent, 0.7)
    plain = request.record([agent])
    shown: list[tuple[int, float]] = []
    episodes: list[tuple[int, tuple]] = []  # (frame, the whole episode it carried)
    started = time.monotonic()

    def on_frame(frame: LiveFrame) -> None:
        shown.append((frame.index, time.monotonic() - started))
        if frame.episode is not None:
            episodes.append((frame.index, frame.episode))

    live = request.record_live(
        [agent],
        _gate(lead=0.2, late=1e9),  # never skips, however busy the machine
        on_frame,
        lambda: None,
    )
    np.testing.assert_array_equal(live.frame_steps, plain.frame_steps)
    np.testing.assert_allclose(live.rewards, plain.rewards, rtol=1e-12, atol=1e-12)
    assert live.meta == plain.meta
    count = plain.length
    assert count >= 10 and [index for index, _ in shown] == list(range(count))
    # The simulation ran to the end while the first frames played (0.2 s of lead: 4 frames):
    # from then on each frame carries the whole episode, whose returns are the recording's.
    first, whole = episodes[0]
    assert first <= 6 and [index for index, _ in episodes] == list(range(first, count))
    assert [record.step for record in whole] == list(plain.frame_steps[0])
    np.testing.assert_allclose(whole[-1].cumulative_return, plain.returns[0], rtol=1e-9)
    # At 20 fps with 0.2 s of lead, the last frame is drawn (count - 1) / 20 - 0.2 s in.
    assert shown[-1][1] >= (count - 1) / 20 - 0.2 - 0.05
    frames, reference = _decoded(live.video, tmp_path), _decoded(plain.video, tmp_path)
    assert frames.shape == reference.shape == (count, 64, 64, 3)
    # Drawn from kept states (positions brought up to date): the same scene, a substep apart.
    assert np.abs(frames.astype(int) - reference).mean() < 20


def test_a_stream_that_falls_behind_skips_frames_and_its_video_holds_the_ones_shown(
    tmp_path: Path,
) -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    request = _request(agent, 0.4, horizon=40)
    plain = request.record([agent])
    shown: list[int] = []

    def slow_viewer(frame: object) -> None:
        shown.append(frame.index)  # type: ignore[attr-defined]
        time.sleep(0.15)  # a deliberately slow viewer, three frames' time at 20 fps

    live = request.record_live([agent], _gate(workers=1), slow_viewer, lambda: None)
    last = plain.length - 1
    assert shown[0] == 0 and shown[-1] == last  # the first and the last are always shown
    assert len(shown) < 0.75 * plain.length and shown == sorted(set(shown))
    # The video is the stream: every frame step, real time, exact rewards; a skipped step
    # holds the picture shown before it.
    np.testing.assert_allclose(live.rewards, plain.rewards, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(live.frame_steps, plain.frame_steps)
    assert live.meta == {**plain.meta, "held_frames": plain.length - len(shown)}
    frames, reference = _decoded(live.video, tmp_path), _decoded(plain.video, tmp_path)
    assert frames.shape == reference.shape

    def apart(one: np.ndarray, other: np.ndarray) -> float:
        return float(np.abs(one.astype(int) - other).mean())

    for index in range(plain.length):
        before = max(shown_index for shown_index in shown if shown_index <= index)
        # H.264 is lossy: a picture repeated decodes almost alike (within ~6 here, where the
        # scene moves by 10 to 70 between frames).
        assert apart(frames[index], frames[before]) < 8
        if apart(reference[index], reference[before]) > 20:  # the scene moved meanwhile
            assert apart(frames[index], reference[before]) < apart(frames[index], reference[index])


def test_a_live_recording_started_in_a_crowd_draws_rough_frames_of_the_same_episode() -> None:
    """Alone, a stream draws anti-aliased frames; among `ROUGH_FROM` other live streams, the
    same episode's frames without anti-aliasing (the same scene, other edges)."""
    from paretoscope.pacing.display import ROUGH_FROM
    from paretoscope.pacing.scheduler import Kind

    agent = LinearAgent(CHEETAH, seed=1)
    request = _request(agent, 0.6, horizon=6)

    def first_frames(others: int) -> tuple[np.ndarray, object]:
        gate = _gate(lead=0.2, late=1e9)
        for index in range(others):  # viewers watching other episodes (no frame asked yet)
            gate.open(f"other {index}", 20.0, Kind.LIVE)
        pictures: list[np.ndarray] = []
        recording = request.record_live(
            [agent], gate, lambda frame: pictures.append(frame.image), lambda: None
        )
        return pictures[0], recording

    alone, alone_recording = first_frames(ROUGH_FROM - 1)
    crowded, crowded_recording = first_frames(ROUGH_FROM)
    assert alone.shape == crowded.shape == (64, 64, 3)
    difference = np.abs(alone.astype(int) - crowded).max(axis=2)
    assert difference.any() and (difference > 8).mean() < 0.1  # edges only
    np.testing.assert_array_equal(
        crowded_recording.rewards,  # type: ignore[attr-defined]
        alone_recording.rewards,  # type: ignore[attr-defined]
    )

    # Idle work draws anti-aliased frames unless asked not to: then the crowd's.
    def idle_first_frame(**smooth: bool) -> np.ndarray:
        pictures: list[np.ndarray] = []
        request.record_live(
            [agent],
            _gate(),
            lambda frame: pictures.append(frame.image),
            lambda: None,
            Kind.IDLE,
            **smooth,
        )
        return pictures[0]

    np.testing.assert_array_equal(idle_first_frame(), alone)
    np.testing.assert_array_equal(idle_first_frame(smooth=False), crowded)


def test_a_prerenderer_offer_says_whether_its_frames_are_anti_aliased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    record_live = EpisodeRequest.record_live
    asked: list[object] = []

    def recording(self: EpisodeRequest, *args: object, **options: object) -> object:
        asked.append(options.get("smooth"))
        return record_live(self, *args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(EpisodeRequest, "record_live", recording)
    library = RecordingLibrary([], tmp_path / "cache")
    prerenderer = Prerenderer(_gate(), busy=lambda key: False)
    prerenderer.offer(library, [_request(agent, 0.5, horizon=4)], _loaded(agent))
    assert prerenderer.idle(60)
    prerenderer.offer_later(
        library, lambda: [_request(agent, 0.4, horizon=4)], _loaded(agent), smooth=False
    )
    assert prerenderer.idle(60)
    assert asked == [True, False] and len(prerenderer.recorded) == 2


def test_a_live_recording_stops_when_nobody_watches() -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    gate = _gate(workers=1)
    shown: list[int] = []

    def check() -> None:
        if len(shown) >= 3:
            raise Cancelled

    with pytest.raises(Cancelled):
        _request(agent, 0.5, horizon=200).record_live(
            [agent], gate, lambda frame: shown.append(frame.index), check
        )
    assert len(shown) == 3 and gate.counts() == (0, 0)


def _loaded(agent: LinearAgent) -> LoadedAgent:
    return LoadedAgent(agent, agent.fingerprint, "linear")


def test_idle_prerendering_fills_the_library_with_the_plain_recordings(tmp_path: Path) -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    library = RecordingLibrary([], tmp_path / "cache")
    requests = [_request(agent, weight) for weight in (0.5, 0.4, 0.6)]
    prerenderer = Prerenderer(_gate(), busy=lambda key: False)
    prerenderer.offer(library, requests, _loaded(agent))
    assert prerenderer.idle(60)
    assert prerenderer.recorded == [request.key() for request in requests]
    for request in requests:
        stored = library.get(request.key())
        assert stored is not None and stored.video
        truth = request.record([agent], render=False)
        np.testing.assert_allclose(stored.returns, truth.returns, rtol=1e-12, atol=1e-9)
        assert _decoded(stored.video, tmp_path).shape[0] == stored.length
    # Offered again: nothing is recorded twice.
    prerenderer.offer(library, requests, _loaded(agent))
    assert prerenderer.idle(10) and len(prerenderer.recorded) == 3


def test_prerendering_skips_what_a_viewer_records_and_stops_at_its_budget(tmp_path: Path) -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    requests = [_request(agent, weight) for weight in (0.5, 0.4, 0.6, 0.3)]
    viewers = {requests[0].key()}  # a viewer records this one live
    one = requests[1].record([agent])
    # Room in memory for a bit more than one recording at the pre-render's share (a half).
    library = RecordingLibrary([], None, capacity_bytes=int(one.nbytes * 2.5))
    prerenderer = Prerenderer(_gate(), busy=lambda key: key in viewers)
    prerenderer.offer(library, requests, _loaded(agent))
    assert prerenderer.idle(60)
    assert prerenderer.recorded == [requests[1].key(), requests[2].key()]
    assert library.get(requests[0].key()) is None and library.get(requests[3].key()) is None


def test_prerendering_waits_until_no_page_has_run_for_a_while() -> None:
    agent = LinearAgent(CHEETAH, seed=4)
    request = _request(agent, 0.5)
    library = RecordingLibrary([], None)
    now = [100.0]
    activity = Activity(clock=lambda: now[0])
    activity.touch()  # a page ran at 100 s
    prerenderer = Prerenderer(_gate(), busy=lambda key: False, activity=activity, quiet_seconds=3.0)
    prerenderer.offer(library, [request], _loaded(agent))
    assert not prerenderer.idle(1.5)  # still 100 s: the server is not quiet, nothing recorded
    assert prerenderer.recorded == [] and library.get(request.key()) is None
    now[0] = 103.5  # no page run for 3.5 s
    assert prerenderer.idle(60)
    assert prerenderer.recorded == [request.key()]


def test_a_later_offer_lists_its_episodes_in_the_background_once_the_server_is_quiet() -> None:
    import threading

    agent = LinearAgent(CHEETAH, seed=4)
    requests = [_request(agent, 0.5), _request(agent, 0.3)]
    library = RecordingLibrary([], None)
    now = [100.0]
    activity = Activity(clock=lambda: now[0])
    activity.touch()
    listed: list[threading.Thread] = []

    def make(wanted: list[EpisodeRequest]) -> list[EpisodeRequest]:
        listed.append(threading.current_thread())
        return wanted

    prerenderer = Prerenderer(_gate(), busy=lambda key: False, activity=activity, quiet_seconds=3.0)
    # Replaced before the server is quiet: never listed.
    prerenderer.offer_later(library, lambda: make(requests[:1]), _loaded(agent))
    prerenderer.offer_later(library, lambda: make(requests[1:]), _loaded(agent))
    assert not prerenderer.idle(1.0)
    assert listed == [] and prerenderer.recorded == []
    now[0] = 103.5
    assert prerenderer.idle(60)
    assert len(listed) == 1 and listed[0] is not threading.current_thread()
    assert prerenderer.recorded == [requests[1].key()]
    assert library.get(requests[0].key()) is None


def test_waiting_for_quiet_checks_meanwhile_and_can_be_given_up() -> None:
    now = [0.0]
    activity = Activity(clock=lambda: now[0])
    assert activity.quiet_for() == float("inf")  # no page has run yet
    activity.touch()
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    activity.wait_quiet(1.0, lambda: None, sleep)
    assert sum(slept) == pytest.approx(1.0) and max(slept) <= 0.25
    activity.touch()

    def give_up() -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        activity.wait_quiet(1.0, give_up, sleep)


def test_explore_on_the_default_view_prerenders_its_grid_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    from paretoscope.dashboard.prerender import shared_prerenderer
    from paretoscope.dashboard.url_state import DEFAULT_VIDEO_SIZE
    from paretoscope.metrics.preferences import preference_grid
    from tests.demo_fixture import build_tiny_assets

    assets = build_tiny_assets(tmp_path / "assets", horizon=8, with_hopper=False)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    st.cache_resource.clear()
    st.cache_data.clear()
    recorded = count_episode_recordings(monkeypatch)
    at = open_app({"size": str(DEFAULT_VIDEO_SIZE)})  # the assets' defaults: cheetah-morvs
    page_ok(at)
    assert shared_prerenderer().idle(180)
    grid = {tuple(float(value) for value in row) for row in preference_grid(2, 20)}
    # The page's own episode live, and every other preference of the slider's grid: once each.
    assert (0.5, 0.5) in recorded
    assert sorted(recorded) == sorted(grid)
    # A viewer who moves to one of them is served the finished video, nothing recorded.
    before = len(recorded)
    at.slider[0].set_value(0.15).run()
    page_ok(at)
    assert len(recorded) == before
    assert episode_videos(at), "the finished video plays"
    episode = shown_episode(at)
    assert episode.preference == pytest.approx([0.85, 0.15])
    truth = rollout_batch(
        load(assets / "agents" / "cheetah-morvs"), CHEETAH, np.array([[0.85, 0.15]]), [0], horizon=8
    )
    np.testing.assert_allclose(episode_returns(at), truth.returns[0], rtol=1e-9)


def test_no_prerender_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st

    from paretoscope.dashboard.limits import prerender_enabled
    from paretoscope.dashboard.prerender import shared_prerenderer
    from paretoscope.dashboard.url_state import DEFAULT_VIDEO_SIZE
    from tests.demo_fixture import build_tiny_assets

    assert prerender_enabled()
    assets = build_tiny_assets(tmp_path / "assets", horizon=8, with_hopper=False)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")
    assert not prerender_enabled()
    st.cache_resource.clear()
    st.cache_data.clear()
    recorded = count_episode_recordings(monkeypatch)
    page_ok(open_app({"size": str(DEFAULT_VIDEO_SIZE)}))
    # The pre-renderer is idle once it has recorded whatever the page offered it: nothing.
    assert shared_prerenderer().idle(180)
    assert recorded == [(0.5, 0.5)]  # the page's own episode only


def test_a_live_streams_simulation_ahead_waits_for_its_share_and_never_its_frames() -> None:
    """With a share of a core too small to simulate anything ahead, a live stream still plays
    every frame (each simulated when due) and records the plain episode; its whole episode is
    known only near its end. With the default share it is known within the first frames (the
    test above)."""
    from paretoscope.pacing.share import CoreShare

    agent = LinearAgent(CHEETAH, seed=2)
    request = _request(agent, 0.4, horizon=60)
    plain = request.record([agent])
    starved = CoreShare(share=1e-6, burst=1e-9)
    known: list[int] = []

    def on_frame(frame: LiveFrame) -> None:
        if frame.episode is not None:
            known.append(frame.index)

    live = request.record_live(
        [agent], _gate(lead=0.2, late=1e9), on_frame, lambda: None, share=starved
    )
    np.testing.assert_array_equal(live.frame_steps, plain.frame_steps)
    np.testing.assert_allclose(live.rewards, plain.rewards, rtol=1e-12, atol=1e-12)
    # Simulated at once: the next second (20 frames) past the frame due, never more.
    assert known and known[0] >= plain.length - 1 - 20 - 6, known[:3]
    assert starved.wait_time() > 1.0  # it did spend what it was not given


def test_a_live_stream_yields_the_cores_once_its_first_frame_is_out() -> None:
    """A playing stream's thread is niced (`paretoscope.pacing.priority`): the next viewer's
    move goes first; the thread that started it (a page's) keeps its own priority."""
    import os
    import threading

    from paretoscope.pacing.priority import STREAMING_NICENESS

    agent = LinearAgent(CHEETAH, seed=1)
    niceness: list[int] = []

    def on_frame(frame: LiveFrame) -> None:
        niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    recorded: list[object] = []
    thread = threading.Thread(
        target=lambda: recorded.append(
            _request(agent, 0.4).record_live([agent], _gate(lead=0.2), on_frame, lambda: None)
        )
    )
    thread.start()
    thread.join()
    assert recorded and len(niceness) >= 2
    assert niceness[0] == own
    assert set(niceness[1:]) == {max(own, STREAMING_NICENESS)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
