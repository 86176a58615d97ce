"""The dashboard's non-UI services: layered results store, rollout library, recorded rollouts
(against independent rollouts), trajectory replay and the tour."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.assets import RolloutRecording
from core.results_store import ResultsStore
from core.rollout import rollout_batch
from dashboard.services import (
    LayeredStore,
    LoadedAgent,
    ReplayAgent,
    RolloutLibrary,
    RolloutRequest,
    Throttle,
    frame_steps,
    record_returns_only,
    record_rollout,
    tour_frames,
)
from dashboard.tour import FrontPanel
from tests.agents_for_tests import LinearAgent

CHEETAH = "MO-HalfCheetah-v2"


def _rows(keys: list[str], value: float) -> pd.DataFrame:
    return pd.DataFrame({"episode_key": keys, "value": [value] * len(keys)})


def test_layered_store_reads_in_order_and_writes_to_the_cache(tmp_path: Path) -> None:
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


def _recording(tag: bytes, video: bool = True) -> RolloutRecording:
    return RolloutRecording(video=tag if video else b"", rewards=np.ones((3, 2)), fps=10.0)


def test_rollout_library_memory_disk_and_eviction(tmp_path: Path) -> None:
    library = RolloutLibrary([tmp_path / "assets"], tmp_path / "cache", capacity=2)
    library.put("k1", _recording(b"one"))
    library.put("k2", _recording(b"two"))
    library.put("k3", _recording(b"three"))
    # k1 left memory but is on disk; a fresh library (new process) finds all three.
    assert library.get("k1").video == b"one"
    fresh = RolloutLibrary([tmp_path / "assets"], tmp_path / "cache")
    assert [fresh.get(k).video for k in ("k1", "k2", "k3")] == [b"one", b"two", b"three"]
    library.put("no-video", _recording(b"", video=False))
    assert library.get("no-video") is not None
    assert RolloutLibrary([], tmp_path / "cache").get("no-video") is None  # memory only
    assert library.get("missing") is None


def test_recorded_rollout_matches_an_independent_rollout(tmp_path: Path) -> None:
    import imageio.v2 as imageio

    agent = LinearAgent(CHEETAH, seed=3)
    loaded = LoadedAgent(agent, fingerprint=agent.fingerprint, name="linear")
    request = RolloutRequest(
        fingerprint=agent.fingerprint,
        env_id=CHEETAH,
        preference=(0.3, 0.7),
        target=None,
        seed=5,
        size=64,
        horizon=30,
        every=2,
    )
    seen = []
    recording = record_rollout(loaded, request, on_frame=lambda frame: seen.append(frame.step))
    truth = rollout_batch(agent, CHEETAH, np.array([[0.3, 0.7]]), [5], horizon=30)
    np.testing.assert_allclose(recording.returns, truth.returns[0], rtol=1e-12, atol=1e-9)
    # One frame every 2 steps, plus the last step.
    length = int(truth.lengths[0])
    assert seen == [step for step in range(1, length + 1) if step % 2 == 0 or step == length]
    np.testing.assert_array_equal(frame_steps(recording), seen)
    path = tmp_path / "video.mp4"
    path.write_bytes(recording.video)
    reader = imageio.get_reader(str(path), "ffmpeg")
    assert reader.count_frames() == len(seen)
    assert reader.get_data(0).shape == (64, 64, 3)
    no_video = record_returns_only(loaded, request, "test")
    assert no_video.video == b"" and no_video.meta["why"] == "test"
    np.testing.assert_allclose(no_video.returns, truth.returns[0], rtol=1e-12, atol=1e-9)
    assert request.key() != RolloutRequest(**{**request.__dict__, "seed": 6}).key()


def test_replay_agent_reproduces_a_recorded_trajectory() -> None:
    agent = LinearAgent(CHEETAH, seed=1)
    recorded = rollout_batch(agent, CHEETAH, np.array([[0.5, 0.5]]), [7], horizon=25, record=True)
    actions = recorded.trajectories[0]["actions"]
    replay = ReplayAgent(CHEETAH, actions)
    again = rollout_batch(replay, CHEETAH, np.array([[0.5, 0.5]]), [7], horizon=len(actions))
    np.testing.assert_allclose(again.returns, recorded.returns)
    with pytest.raises(Exception, match="one trajectory"):
        replay.reset(2)


def test_throttle_limits_the_rate() -> None:
    throttle = Throttle(rate=5.0)
    assert throttle.ready() and not throttle.ready()
    time.sleep(0.21)
    assert throttle.ready()


def test_tour_frames_count_and_layout() -> None:
    agent = LinearAgent(CHEETAH, seed=2)
    loaded = LoadedAgent(agent, fingerprint=agent.fingerprint, name="linear")
    stops = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    returns = np.array([[10.0, 1.0], [5.0, 5.0], [1.0, 10.0]])
    panel = FrontPanel(("run", "energy"), returns, size=48)
    frames = list(tour_frames(loaded, CHEETAH, stops, returns, panel, 0, 48, 6, 2))
    lengths = [
        int(rollout_batch(agent, CHEETAH, stop[None], [0], horizon=6).lengths[0]) for stop in stops
    ]
    assert len(frames) == sum(-(-length // 2) for length in lengths)
    assert frames[0].shape == (48, 96, 3)
