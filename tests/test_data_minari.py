"""Minari datasets: native <-> Minari round trips, scalar rewards refused, foreign datasets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium
import minari
import numpy as np
import pytest

from paretoscope.data import (
    convert,
    dataset_summary,
    detect_format,
    open_native,
    read_d4morl,
    read_minari,
    write_minari,
)
from paretoscope.errors import ParetoscopeError
from tests.test_data_support import CHEETAH, CHEETAH_FILE, make_entries, make_entry, write_pickle

COLUMNS = (
    "observations",
    "actions",
    "raw_rewards",
    "terminals",
    "preferences",
    "offsets",
    "final_observations",
)


@pytest.fixture(autouse=True)
def _minari_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep every Minari dataset of these tests inside the test's directory."""
    root = tmp_path / "minari-datasets"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root


def _native(tmp_path: Path, count: int = 15, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    entries = make_entries(count, seed=seed)
    entries.append(make_entry(rng, 500))  # a full-horizon episode: truncated, not terminated
    return convert(write_pickle(tmp_path / CHEETAH_FILE, entries), tmp_path / "native")


def test_native_to_minari_to_native_is_lossless(tmp_path: Path, _minari_root: Path) -> None:
    native = _native(tmp_path)
    dataset_dir = convert(native, "minari:paretoscope/cheetah-expert-v0")
    assert dataset_dir == _minari_root / "paretoscope" / "cheetah-expert-v0"
    assert (dataset_dir / "data" / "main_data.hdf5").is_file()
    assert detect_format(dataset_dir) == "minari"

    back = convert(dataset_dir, tmp_path / "back")
    original, again = open_native(native), open_native(back)
    for name in COLUMNS:
        np.testing.assert_array_equal(getattr(original, name), getattr(again, name), err_msg=name)
    assert again.info.env_id == CHEETAH
    assert again.info.quality == original.info.quality
    assert again.info.preference_distribution == original.info.preference_distribution
    # Also by id, and in memory.
    by_id = read_minari("minari:paretoscope/cheetah-expert-v0")
    np.testing.assert_array_equal(by_id.raw_rewards, original.raw_rewards)


def test_minari_sees_vector_rewards_and_split_terminals(tmp_path: Path) -> None:
    native = _native(tmp_path, count=3)
    dataset_dir = write_minari(open_native(native), "paretoscope/split-v0")
    dataset = minari.load_dataset("paretoscope/split-v0")
    assert len(dataset) == 4
    episodes = list(dataset.iterate_episodes())
    original = open_native(native)
    for index, episode in enumerate(episodes):
        trajectory = original.trajectory(index)
        assert episode.rewards.shape == (len(trajectory), 2)  # vector rewards kept
        np.testing.assert_array_equal(episode.observations[:-1], trajectory.observations)
        np.testing.assert_array_equal(episode.observations[-1], trajectory.final_observation)
    # Short episodes end in a termination, the 500-step one in a truncation.
    assert episodes[0].terminations[-1] and not episodes[0].truncations[-1]
    assert episodes[-1].truncations[-1] and not episodes[-1].terminations[-1]
    assert dataset_dir.name == "split-v0"


def test_scalar_reward_dataset_is_refused(tmp_path: Path) -> None:
    from minari.data_collector import EpisodeBuffer

    rng = np.random.default_rng(0)
    buffers = [
        EpisodeBuffer(
            observations=rng.normal(size=(11, 17)),
            actions=rng.uniform(-1, 1, size=(10, 6)),
            rewards=rng.normal(size=10),
            terminations=np.zeros(10, dtype=bool),
            truncations=np.eye(1, 10, 9, dtype=bool)[0],
        )
    ]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minari.create_dataset_from_buffers(
            "scalar/cheetah-v0",
            buffers,
            observation_space=gymnasium.spaces.Box(-np.inf, np.inf, (17,), np.float64),
            action_space=gymnasium.spaces.Box(-1, 1, (6,), np.float64),
            data_format="hdf5",
        )
    with pytest.raises(ParetoscopeError, match=r"episode 0: rewards are scalars .* \(T, n_obj\)"):
        read_minari("minari:scalar/cheetah-v0", env_id=CHEETAH)
    with pytest.raises(ParetoscopeError, match="rewards are scalars"):
        convert("minari:scalar/cheetah-v0", tmp_path / "out", env_id=CHEETAH)
    assert not (tmp_path / "out").exists()


def test_foreign_vector_dataset_needs_an_env_and_gets_equal_weights(tmp_path: Path) -> None:
    from minari.data_collector import EpisodeBuffer

    rng = np.random.default_rng(1)
    buffers = [
        EpisodeBuffer(
            observations=rng.normal(size=(length + 1, 17)),
            actions=rng.uniform(-1, 1, size=(length, 6)),
            rewards=rng.normal(size=(length, 2)),
            terminations=np.zeros(length, dtype=bool),
            truncations=np.zeros(length, dtype=bool),
        )
        for length in (5, 8)
    ]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minari.create_dataset_from_buffers(
            "foreign/cheetah-v0",
            buffers,
            observation_space=gymnasium.spaces.Box(-np.inf, np.inf, (17,), np.float64),
            action_space=gymnasium.spaces.Box(-1, 1, (6,), np.float64),
            data_format="hdf5",
        )
    with pytest.raises(ParetoscopeError, match="cannot tell which paretoscope environment.*--env"):
        read_minari("minari:foreign/cheetah-v0")
    trajectories = read_minari("minari:foreign/cheetah-v0", env_id=CHEETAH)
    np.testing.assert_array_equal(trajectories.preferences, np.full((2, 2), 0.5))
    np.testing.assert_array_equal(trajectories.lengths, [5, 8])
    np.testing.assert_allclose(
        trajectories.returns, np.stack([b.rewards.sum(axis=0) for b in buffers]), rtol=1e-12
    )


def test_minari_summary_is_cached_beside_the_data(tmp_path: Path) -> None:
    native = _native(tmp_path, count=5)
    dataset_dir = write_minari(open_native(native), "paretoscope/cached-v0")
    summary = dataset_summary(dataset_dir)
    assert (dataset_dir / "data" / "paretoscope-summary.npz").is_file()
    assert summary.to_dict()["non_dominated"] == dataset_summary(native).to_dict()["non_dominated"]
    assert dataset_summary(dataset_dir).to_dict() == summary.to_dict()


def test_existing_minari_dataset_is_not_overwritten(tmp_path: Path) -> None:
    trajectories = read_d4morl(write_pickle(tmp_path / CHEETAH_FILE, make_entries(2)))
    write_minari(trajectories, "paretoscope/once-v0")
    with pytest.raises(ParetoscopeError, match="minari:paretoscope/once-v0: .*already exists"):
        write_minari(trajectories, "paretoscope/once-v0")


def test_missing_minari_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trajectories = read_d4morl(write_pickle(tmp_path / CHEETAH_FILE, make_entries(2)))
    monkeypatch.setitem(sys.modules, "minari", None)  # makes `import minari` fail
    with pytest.raises(ParetoscopeError, match=r"pip install 'paretoscope\[minari\]'"):
        write_minari(trajectories, "paretoscope/none-v0")


def test_not_a_minari_id(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="minari:nowhere/none-v0: no local Minari dataset"):
        read_minari("minari:nowhere/none-v0", env_id=CHEETAH)


def test_metadata_nested_deeply_is_refused_and_a_deep_field_too(tmp_path: Path) -> None:
    from paretoscope.data.minari_io import sniff_minari

    data = tmp_path / "deep" / "data"
    data.mkdir(parents=True)
    (data / "metadata.json").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ParetoscopeError, match=r"metadata\.json: not readable JSON \(nested"):
        sniff_minari(tmp_path / "deep")
    # A field holding JSON as text: nested too deeply is refused, not JSON is only unknown.
    deep_field = {"env_spec": "[" * 100_000 + "]" * 100_000, "total_episodes": 1}
    (data / "metadata.json").write_text(json.dumps(deep_field))
    with pytest.raises(ParetoscopeError, match=r"field 'env_spec': not readable JSON \(nested"):
        sniff_minari(tmp_path / "deep")
    (data / "metadata.json").write_text(json.dumps({"env_spec": "{not json", "total_episodes": 1}))
    header = sniff_minari(tmp_path / "deep")
    assert header is not None and header.env_id is None and header.n_trajectories == 1
