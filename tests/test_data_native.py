"""The native format: lossless round trips, memory maps, atomic writes, versioned header."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paretoscope.data import (
    NativeWriter,
    Trajectories,
    Trajectory,
    convert,
    dataset_summary,
    is_native_dataset,
    open_dataset,
    open_native,
    read_d4morl,
    write_d4morl,
    write_native,
)
from paretoscope.data.native import FORMAT_VERSION, HEADER_FILE, read_header
from paretoscope.errors import ParetoscopeError
from tests.test_data_support import CHEETAH, CHEETAH_FILE, make_entries, write_pickle

COLUMNS = (
    "observations",
    "actions",
    "raw_rewards",
    "terminals",
    "preferences",
    "offsets",
    "final_observations",
)


def _assert_same(first: Trajectories, second: Trajectories) -> None:
    for name in COLUMNS:
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
        assert np.asarray(getattr(first, name)).dtype == np.asarray(getattr(second, name)).dtype
    assert first.info.env_id == second.info.env_id
    assert first.info.objective_names == second.info.objective_names


def test_d4morl_to_native_to_d4morl_is_lossless(tmp_path: Path) -> None:
    entries = make_entries(25, seed=5)
    source = write_pickle(tmp_path / CHEETAH_FILE, entries)
    native = convert(source, tmp_path / "cheetah")
    assert is_native_dataset(native)
    opened = open_native(native)
    assert isinstance(opened.observations, np.memmap)
    _assert_same(read_d4morl(source), opened)
    assert opened.info.source.endswith(CHEETAH_FILE)
    assert opened.info.quality == "expert"

    back = convert(native, tmp_path / "back" / CHEETAH_FILE)
    _assert_same(read_d4morl(source), read_d4morl(back))


def test_stored_returns_match_a_direct_sum(tmp_path: Path) -> None:
    entries = make_entries(30, seed=6)
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, entries), tmp_path / "native")
    expected = np.stack([entry["raw_rewards"].sum(axis=0) for entry in entries])
    np.testing.assert_allclose(open_native(native).returns, expected, rtol=1e-12)
    np.testing.assert_array_equal(
        open_native(native).lengths, [len(entry["observations"]) for entry in entries]
    )


def test_header_is_versioned_json(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(3)), tmp_path / "n")
    header = json.loads((native / HEADER_FILE).read_text())
    assert header["format"] == "paretoscope-trajectories"
    assert header["version"] == FORMAT_VERSION
    assert header["info"]["env_id"] == CHEETAH
    steps = header["n_steps"]
    assert header["columns"]["observations"] == {
        "file": "observations.npy",
        "dtype": "<f8",
        "shape": [steps, 17],
    }
    assert header["columns"]["terminals"]["shape"] == [steps]
    for entry in header["columns"].values():  # every column is a plain .npy file
        array = np.load(native / entry["file"], allow_pickle=False)
        assert list(array.shape) == entry["shape"]


def test_newer_format_version_is_refused(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(3)), tmp_path / "n")
    header = json.loads((native / HEADER_FILE).read_text())
    header["version"] = FORMAT_VERSION + 1
    (native / HEADER_FILE).write_text(json.dumps(header))
    with pytest.raises(ParetoscopeError, match=r"format version 2; .*\(upgrade paretoscope\)"):
        read_header(native)


def test_damaged_column_is_reported(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(3)), tmp_path / "n")
    np.save(native / "actions.npy", np.zeros((2, 6)))
    with pytest.raises(ParetoscopeError, match="actions.npy.*damaged"):
        open_native(native)


def test_existing_output_is_kept_unless_overwrite(tmp_path: Path) -> None:
    source = write_pickle(tmp_path / CHEETAH_FILE, make_entries(3))
    native = convert(source, tmp_path / "n")
    with pytest.raises(ParetoscopeError, match="already exists"):
        convert(source, native)
    convert(source, native, overwrite=True)
    assert open_native(native).n_trajectories == 3
    other = tmp_path / "not-a-dataset"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(ParetoscopeError, match="not a paretoscope dataset; refusing"):
        convert(source, other, overwrite=True)
    assert (other / "precious.txt").read_text() == "keep me"


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    trajectories = read_d4morl(write_pickle(tmp_path / CHEETAH_FILE, make_entries(4)))
    target = tmp_path / "target"
    with (
        pytest.raises(RuntimeError, match="interrupted"),
        NativeWriter(target, trajectories.info) as writer,
    ):
        writer.append(trajectories.trajectory(0))
        raise RuntimeError("interrupted")
    assert sorted(p.name for p in tmp_path.iterdir()) == [CHEETAH_FILE]


def test_writer_validates_trajectories(tmp_path: Path) -> None:
    trajectories = read_d4morl(write_pickle(tmp_path / CHEETAH_FILE, make_entries(2)))
    good = trajectories.trajectory(0)
    bad = Trajectory(
        observations=good.observations,
        actions=good.actions,
        raw_rewards=np.full_like(good.raw_rewards, np.nan),
        terminals=good.terminals,
        preference=good.preference,
        final_observation=good.final_observation,
    )
    with (
        pytest.raises(ParetoscopeError, match="trajectory 1: raw_rewards contains NaN"),
        NativeWriter(tmp_path / "n", trajectories.info) as writer,
    ):
        writer.append(good)
        writer.append(bad)
    assert not (tmp_path / "n").exists()


def test_in_memory_write_and_open_dataset(tmp_path: Path) -> None:
    trajectories = read_d4morl(write_pickle(tmp_path / CHEETAH_FILE, make_entries(7, seed=8)))
    path = write_native(trajectories, tmp_path / "n")
    _assert_same(trajectories, open_dataset(path))
    trajectory = open_dataset(path).trajectory(-1)
    np.testing.assert_array_equal(trajectory.observations, trajectories.trajectory(6).observations)


def test_summary_opens_from_the_cache_without_the_step_columns(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(20)), tmp_path / "n")
    first = dataset_summary(native)
    # The step columns are not needed for the summary: remove them.
    for name in ("observations", "actions", "raw_rewards", "terminals"):
        (native / f"{name}.npy").unlink()
    second = dataset_summary(native)
    assert second.to_dict() == first.to_dict()
    assert second.table is not None
    np.testing.assert_array_equal(second.table.returns, first.table.returns)


def test_stale_or_missing_native_summary_is_recomputed(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(10)), tmp_path / "n")
    expected = dataset_summary(native).to_dict()
    cached = json.loads((native / "summary.json").read_text())
    cached["dataset_uid"] = "something else"
    cached["hypervolume"] = -1.0
    (native / "summary.json").write_text(json.dumps(cached))
    assert dataset_summary(native).to_dict() == expected
    (native / "summary.json").unlink()
    assert dataset_summary(native).to_dict() == expected
    assert (native / "summary.json").exists()


def test_write_d4morl_refuses_to_overwrite(tmp_path: Path) -> None:
    source = write_pickle(tmp_path / CHEETAH_FILE, make_entries(2))
    with pytest.raises(ParetoscopeError, match="already exists"):
        write_d4morl(read_d4morl(source), source)


def test_a_header_nested_deeply_is_refused_in_one_message(tmp_path: Path) -> None:
    native = convert(write_pickle(tmp_path / CHEETAH_FILE, make_entries(3)), tmp_path / "n")
    (native / HEADER_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(
        ParetoscopeError, match=r"paretoscope-dataset\.json: not readable JSON \(nested deeper"
    ):
        read_header(native)
