"""Recordings without Streamlit (paretoscope.recordings): each kind against independent rollouts,
keys, the library (memory, disk, eviction), the layered results store, the replay agent and
the tour's frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.agents.replay import ReplayAgent
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings import (
    EpisodeRequest,
    Recording,
    RecordingLibrary,
    ReplayRequest,
    SideBySideRequest,
    TourRequest,
    read_recording,
    write_recording,
)
from paretoscope.render.front_panel import FrontPanel
from paretoscope.render.tour import tour_frames
from paretoscope.results_store import LayeredStore, ResultsStore
from paretoscope.rollout import rollout_batch
from tests.agents_for_tests import LinearAgent

CHEETAH = "MO-HalfCheetah-v2"


def _frames_in(video: bytes, tmp_path: Path) -> tuple[int, tuple[int, ...]]:
    import imageio.v2 as imageio

    path = tmp_path / "video.mp4"
    path.write_bytes(video)
    reader = imageio.get_reader(str(path), "ffmpeg")
    return reader.count_frames(), reader.get_data(0).shape


def _truth(agent: LinearAgent, preference: list[float], seed: int, horizon: int):  # noqa: ANN202
    return rollout_batch(agent, CHEETAH, np.array([preference]), [seed], horizon=horizon)


def _episode(agent: LinearAgent, **changes: object) -> EpisodeRequest:
    values: dict[str, object] = {
        "fingerprint": agent.fingerprint,
        "env_id": CHEETAH,
        "preference": (0.3, 0.7),
        "target": None,
        "seed": 5,
        "size": 64,
        "horizon": 30,
        "every": 2,
        "label": "linear",
    }
    values.update(changes)
    return EpisodeRequest(**values)  # type: ignore[arg-type]


# --- the four kinds -------------------------------------------------------------------------------


def test_an_episode_recording_matches_an_independent_rollout(tmp_path: Path) -> None:
    agent = LinearAgent(CHEETAH, seed=3)
    request = _episode(agent)
    seen: list[int] = []
    recording = request.record([agent], on_frame=lambda frame: seen.append(frame.record.step))
    truth = _truth(agent, [0.3, 0.7], 5, 30)
    assert recording.lanes == ("linear",)
    np.testing.assert_allclose(recording.returns[0], truth.returns[0], rtol=1e-12, atol=1e-9)
    # One frame every 2 steps, plus the last step.
    length = int(truth.lengths[0])
    assert seen == [step for step in range(1, length + 1) if step % 2 == 0 or step == length]
    np.testing.assert_array_equal(recording.frame_steps[0], seen)
    assert _frames_in(recording.video, tmp_path) == (len(seen), (64, 64, 3))
    # Without rendering: every step, no video, the same returns.
    no_video = request.record([agent], render=False)
    assert no_video.video == b"" and no_video.length == length
    np.testing.assert_allclose(no_video.returns[0], truth.returns[0], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(no_video.cumulative(0)[-1], truth.returns[0], atol=1e-9)


def test_side_by_side_keeps_each_agents_returns(tmp_path: Path) -> None:
    first, second = LinearAgent(CHEETAH, seed=3), LinearAgent(CHEETAH, seed=4)
    request = SideBySideRequest(
        fingerprints=(first.fingerprint, second.fingerprint),
        labels=("A", "B"),
        env_id=CHEETAH,
        preference=(0.6, 0.4),
        seed=2,
        size=48,
        horizon=20,
        every=1,
        columns=2,
    )
    frames: list[int] = []
    recording = request.record([first, second], on_frame=lambda frame: frames.append(frame.index))
    assert recording.lanes == ("A", "B") and recording.length == len(frames) == 20
    for lane, agent in enumerate((first, second)):
        truth = _truth(agent, [0.6, 0.4], 2, 20)
        np.testing.assert_allclose(recording.returns[lane], truth.returns[0], atol=1e-9)
    count, shape = _frames_in(recording.video, tmp_path)
    assert count == 20 and shape[1] > 2 * 48  # two tiles side by side (and a gap)
    without = request.record([first, second], render=False)
    np.testing.assert_allclose(without.returns, recording.returns, atol=1e-9)
    with pytest.raises(ParetoscopeError, match="needs 2 agent"):
        request.record([first])


def test_a_tour_records_each_stops_shown_steps() -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    stops = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    full_returns = np.array([[10.0, 1.0], [5.0, 5.0], [1.0, 10.0]])
    request = TourRequest(
        fingerprint=agent.fingerprint,
        label="linear",
        env_id=CHEETAH,
        stops=stops,
        seed=0,
        size=48,
        steps_per_stop=6,
        every=2,
        panel_source="test",
    )
    with pytest.raises(ParetoscopeError, match="panel"):
        request.record([agent])
    recording = request.with_panel(full_returns, full_returns).record([agent])
    assert recording.length == request.frame_count == 9 and len(recording.lanes) == 3
    for lane, stop in enumerate(stops):
        truth = _truth(agent, list(stop), 0, 6)  # the steps the tour shows of this stop
        np.testing.assert_allclose(recording.returns[lane], truth.returns[0], atol=1e-9)
    # Each stop's lane moves only during its own frames.
    assert list(recording.frame_steps[1]) == [0, 0, 0, 2, 4, 6, 6, 6, 6]
    # Stops are named in words, for an audience.
    assert recording.lanes == (
        "stop 1 of 3: all run (100% run, 0% energy)",
        "stop 2 of 3: balanced (50% run, 50% energy)",
        "stop 3 of 3: all energy (0% run, 100% energy)",
    )
    with pytest.raises(ParetoscopeError, match="one return per stop"):
        request.with_panel(full_returns[:2], full_returns)


def test_a_replay_reproduces_a_recorded_trajectory(tmp_path: Path) -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    recorded = rollout_batch(agent, CHEETAH, np.array([[0.5, 0.5]]), [7], horizon=25, record=True)
    actions = recorded.trajectories[0]["actions"]
    request = ReplayRequest(
        dataset="test-data",
        trajectory=3,
        env_id=CHEETAH,
        actions=actions,
        preference=(0.5, 0.5),
        seed=7,
        size=32,
        every=1,
    )
    recording = request.record()
    np.testing.assert_allclose(recording.returns[0], recorded.returns[0], atol=1e-9)
    assert recording.length == len(actions) and _frames_in(recording.video, tmp_path)[0] == 25
    other = ReplayRequest(**{**request.__dict__, "actions": actions[::-1].copy()})
    assert other.key() != request.key()  # the stored actions are part of what is replayed


def test_the_replay_agent_plays_stored_actions() -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    recorded = rollout_batch(agent, CHEETAH, np.array([[0.5, 0.5]]), [7], horizon=25, record=True)
    actions = recorded.trajectories[0]["actions"]
    replay = ReplayAgent(CHEETAH, actions)
    again = rollout_batch(replay, CHEETAH, np.array([[0.5, 0.5]]), [7], horizon=len(actions))
    np.testing.assert_allclose(again.returns, recorded.returns)
    with pytest.raises(ParetoscopeError, match="one trajectory"):
        replay.reset(2)


def test_tour_frames_count_and_layout() -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    stops = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    returns = np.array([[10.0, 1.0], [5.0, 5.0], [1.0, 10.0]])
    panel = FrontPanel(("run", "energy"), returns, size=48)
    frames = list(tour_frames(agent, CHEETAH, stops, returns, panel, 0, 48, 6, 2))
    lengths = [int(_truth(agent, list(stop), 0, 6).lengths[0]) for stop in stops]
    assert len(frames) == sum(-(-length // 2) for length in lengths)
    assert [index for index, _, _ in frames] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert frames[0][2].shape == (48, 96, 3)


# --- keys ---------------------------------------------------------------------------------------


def test_keys_are_stable_and_say_everything_that_changes_the_recording() -> None:
    agent = LinearAgent(CHEETAH, seed=3)
    base = _episode(agent)
    key = base.key()
    assert _episode(agent, preference=(0.3 + 1e-12, 0.7 - 1e-12)).key() == key
    assert _episode(agent, label="another name").key() == key  # the lane's name is not drawn
    for change in (
        {"fingerprint": "other"},
        {"env_id": "MO-Hopper-v2"},
        {"preference": (0.4, 0.6)},
        {"target": (100.0, 200.0)},
        {"seed": 6},
        {"size": 32},
        {"horizon": 29},
        {"every": 1},
    ):
        assert _episode(agent, **change).key() != key, change
    side = SideBySideRequest(("a", "b"), ("A", "B"), CHEETAH, (0.3, 0.7), 5, 64, 30, 2)
    swapped = SideBySideRequest(("b", "a"), ("B", "A"), CHEETAH, (0.3, 0.7), 5, 64, 30, 2)
    assert len({key, side.key(), swapped.key()}) == 3  # kinds and lane order are distinct


# --- storing recordings -------------------------------------------------------------------------


def _recording(tag: bytes, video: bool = True, frames: int = 3) -> Recording:
    return Recording(
        video=tag if video else b"",
        fps=10.0,
        lanes=("agent",),
        rewards=np.ones((1, frames, 2)),
        frame_steps=np.arange(1, frames + 1)[None, :],
    )


def test_a_recording_round_trips_through_its_files(tmp_path: Path) -> None:
    rewards = np.random.default_rng(0).normal(size=(2, 5, 3))
    recording = Recording(
        video=b"\x00mp4bytes",
        fps=20.0,
        lanes=("A", "B"),
        rewards=rewards,
        frame_steps=np.tile(np.arange(1, 6), (2, 1)),
        meta={"a": 1},
    )
    write_recording(tmp_path / "one", "k1", recording)
    back = read_recording([tmp_path / "none", tmp_path / "one"], "k1")
    assert back is not None and back.video == recording.video and back.lanes == ("A", "B")
    np.testing.assert_array_equal(back.rewards, rewards)
    np.testing.assert_array_equal(back.returns, rewards.sum(axis=1))
    assert back.fps == 20.0 and back.meta == {"a": 1}
    assert read_recording([tmp_path / "one"], "other") is None
    (tmp_path / "one" / "k1.mp4").write_bytes(b"swapped")  # no longer the video it describes
    assert read_recording([tmp_path / "one"], "k1") is None
    with pytest.raises(ParetoscopeError, match="lanes=2"):
        Recording(b"", 1.0, ("A", "B"), np.zeros((1, 3, 2)), np.zeros((1, 3)))


def test_the_library_keeps_memory_then_disk_and_evicts(tmp_path: Path) -> None:
    library = RecordingLibrary([tmp_path / "assets"], tmp_path / "cache", capacity=2)
    library.put("k1", _recording(b"one"))
    library.put("k2", _recording(b"two"))
    library.put("k3", _recording(b"three"))
    # k1 left memory but is on disk; a fresh library (new process) finds all three.
    assert library.get("k1").video == b"one"
    fresh = RecordingLibrary([tmp_path / "assets"], tmp_path / "cache")
    assert [fresh.get(k).video for k in ("k1", "k2", "k3")] == [b"one", b"two", b"three"]
    library.put("no-video", _recording(b"", video=False, frames=4))
    kept = library.get("no-video")
    assert kept is not None and kept.video == b"" and kept.length == 4
    assert RecordingLibrary([], tmp_path / "cache").get("no-video") is None  # memory only
    assert library.get("missing") is None


def test_the_library_is_bounded_in_bytes(tmp_path: Path) -> None:
    each = _recording(bytes(10_000)).nbytes
    library = RecordingLibrary([], tmp_path / "cache", capacity=1000, capacity_bytes=3 * each)
    for index in range(5):
        library.put(f"k{index}", _recording(bytes([index]) * 10_000))
        assert library.memory_bytes <= 3 * each
    library.get("k2")  # recently used: kept
    library.put("k5", _recording(bytes([5]) * 10_000))
    assert set(library._memory) == {"k2", "k4", "k5"}
    assert library.memory_bytes == 3 * each
    # A recording larger than the whole budget is served from disk, never held.
    library.put("huge", _recording(bytes(4 * each)))
    assert "huge" not in library._memory and library.get("huge") is not None
    assert library.memory_bytes <= 3 * each
    assert library.get("k0").video == bytes([0]) * 10_000  # dropped from memory, still on disk


# --- the layered results store ------------------------------------------------------------------


def _rows(keys: list[str], value: float) -> pd.DataFrame:
    return pd.DataFrame({"episode_key": keys, "value": [value] * len(keys)})


def test_layered_store_reads_in_order_and_writes_to_the_last(tmp_path: Path) -> None:
    assets = ResultsStore(tmp_path / "assets")
    assets.write(CHEETAH, _rows(["a", "b"], 1.0))
    cache = ResultsStore(tmp_path / "cache")
    cache.write(CHEETAH, _rows(["b", "c"], 2.0))
    layered = LayeredStore([assets], cache)
    table = layered.read(CHEETAH, {"a", "b", "c"}).set_index("episode_key")["value"]
    assert table.to_dict() == {"a": 1.0, "b": 1.0, "c": 2.0}  # the assets win for b
    layered.write(CHEETAH, _rows(["d"], 3.0))
    assert set(cache.read(CHEETAH)["episode_key"]) == {"b", "c", "d"}
    assert set(assets.read(CHEETAH)["episode_key"]) == {"a", "b"}
    assert len(layered.read("MO-Hopper-v3")) == 0


@pytest.mark.parametrize(
    ("preference", "words"),
    [
        ([0.8, 0.2], "mostly run (80% run, 20% energy)"),
        ([0.45, 0.55], "balanced (45% run, 55% energy)"),
        ([0.35, 0.65], "mostly energy (35% run, 65% energy)"),
        ([0.0, 1.0], "all energy (0% run, 100% energy)"),
        ([0.5, 0.3, 0.2], "leaning to a (50% a, 30% b, 20% c)"),
    ],
)
def test_a_preference_is_described_in_words(preference: list[float], words: str) -> None:
    from paretoscope.render.tour import describe_preference

    names = ("run", "energy") if len(preference) == 2 else ("a", "b", "c")
    assert describe_preference(preference, names) == words


def test_a_tour_caption_speaks_plainly() -> None:
    from paretoscope.envs import get_spec
    from paretoscope.render.frames import FrameRecord
    from paretoscope.render.tour import tour_caption
    from paretoscope.rollout import StepRecord

    spec = get_spec(CHEETAH)  # dt 0.05 s, 500 steps: 25 s
    record = StepRecord(
        step=46,
        observation=np.zeros(17),
        action=np.zeros(6),
        reward=np.zeros(2),
        cumulative_return=np.array([1234.4, 56.0]),
        remaining_target=np.array([1309.6, 944.0]),
        done=False,
        terminated=False,
        diverged=False,
    )
    frame = FrameRecord(
        record, np.zeros((4, 4, 3), np.uint8), np.array([0.8, 0.2]), np.array([2544.0, 1000.0])
    )
    assert tour_caption(spec, frame, 2, 11) == (
        "stop 3 of 11: mostly run (80% run, 20% energy)",
        "aiming for a score of run 2,544, energy 1,000",
        "score so far: run 1,234, energy 56",
        "0:02 of 0:25",
    )
