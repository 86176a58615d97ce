"""Dataset summaries checked against direct numpy and brute-force computations; caching."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from paretoscope.data import (
    DatasetInfo,
    TrajectoryTable,
    convert,
    dataset_summary,
    read_d4morl,
    summarize,
    summarize_trajectories,
)
from paretoscope.data.sources import SIDECAR_SUFFIX
from paretoscope.errors import ParetoscopeError
from tests.brute_force import hypervolume_2d
from tests.test_data_support import CHEETAH, CHEETAH_FILE, make_entries, write_pickle


def _brute_force_non_dominated(points: np.ndarray) -> np.ndarray:
    """Textbook definition, O(n^2): no other point is >= everywhere and > somewhere."""
    keep = np.ones(len(points), dtype=bool)
    for i, p in enumerate(points):
        for j, q in enumerate(points):
            if i != j and (q >= p).all() and (q > p).any():
                keep[i] = False
                break
    return keep


def _table(seed: int, count: int, horizon: int = 500) -> TrajectoryTable:
    rng = np.random.default_rng(seed)
    # Small integers: ties and duplicates occur; some returns negative (outside the HV box).
    returns = rng.integers(-3, 30, size=(count, 2)).astype(float)
    lengths = rng.integers(1, horizon + 1, size=count)
    lengths[: count // 3] = horizon
    preferences = rng.dirichlet([0.5, 0.5], size=count)
    return TrajectoryTable.from_columns(returns, lengths, preferences, horizon)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_summary_numbers_match_direct_computation(seed: int) -> None:
    table = _table(seed, 300)
    info = DatasetInfo.for_env(CHEETAH)
    summary = summarize(table, info)

    assert summary.n_trajectories == 300
    assert summary.n_steps == int(table.lengths.sum())
    assert (summary.length_min, summary.length_max) == (table.lengths.min(), table.lengths.max())
    assert summary.length_mean == pytest.approx(table.lengths.mean())
    assert summary.n_ended_early == int((table.lengths < 500).sum())
    np.testing.assert_allclose(summary.return_min, table.returns.min(axis=0))
    np.testing.assert_allclose(summary.return_max, table.returns.max(axis=0))
    np.testing.assert_allclose(summary.return_mean, table.returns.mean(axis=0))

    expected_front = np.flatnonzero(_brute_force_non_dominated(table.returns))
    assert summary.non_dominated == tuple(expected_front)
    assert summary.reference_point == (0.0, 0.0)
    assert summary.hypervolume == pytest.approx(
        hypervolume_2d(table.returns, np.zeros(2)), rel=1e-12
    )

    np.testing.assert_allclose(summary.preference_min, table.preferences.min(axis=0))
    np.testing.assert_allclose(summary.preference_max, table.preferences.max(axis=0))
    assert len(summary.preference_bin_edges) == 21
    for objective in range(2):
        counts = np.zeros(20, dtype=int)
        for value in table.preferences[:, objective]:
            counts[min(int(value * 20), 19)] += 1  # bins [k/20, (k+1)/20), the last closed
        assert summary.preference_histograms[objective] == tuple(counts)


def test_summary_of_a_file_matches_its_trajectories(tmp_path: Path) -> None:
    entries = make_entries(40, seed=11)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    summary = dataset_summary(path)
    returns = np.stack([entry["raw_rewards"].sum(axis=0) for entry in entries])
    np.testing.assert_allclose(summary.table.returns, returns, rtol=1e-12)
    assert summary.n_steps == sum(len(entry["terminals"]) for entry in entries)
    assert summary.non_dominated == tuple(np.flatnonzero(_brute_force_non_dominated(returns)))
    # The same through the native format.
    native = convert(path, tmp_path / "native")
    assert dataset_summary(native).to_dict() == summary.to_dict()
    assert summarize_trajectories(read_d4morl(path)).to_dict() == summary.to_dict()


def test_summary_round_trips_through_json() -> None:
    summary = summarize(_table(3, 50), DatasetInfo.for_env(CHEETAH))
    again = type(summary).from_dict(json.loads(json.dumps(summary.to_dict())))
    assert again.to_dict() == summary.to_dict()


def test_d4morl_summary_is_cached_in_a_sidecar_and_invalidated(tmp_path: Path) -> None:
    path = write_pickle(tmp_path / CHEETAH_FILE, make_entries(10, seed=1))
    first = dataset_summary(path)
    sidecar = tmp_path / (CHEETAH_FILE + SIDECAR_SUFFIX)
    assert sidecar.exists()
    with np.load(sidecar, allow_pickle=False) as content:  # no pickle inside
        assert set(content.files) >= {"key", "summary", "returns"}

    # A second open reads the sidecar: prove it by breaking the source without changing its
    # size or modification time.
    status = path.stat()
    original = path.read_bytes()
    path.write_bytes(b"\0" * len(original))
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert dataset_summary(path).to_dict() == first.to_dict()

    # A real change (new content, new mtime) invalidates it.
    write_pickle(path, make_entries(12, seed=2))
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))
    assert dataset_summary(path).n_trajectories == 12


def test_summary_of_nothing_is_an_error() -> None:
    empty = TrajectoryTable.from_columns(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), 500)
    with pytest.raises(ParetoscopeError, match="no trajectories"):
        summarize(empty, DatasetInfo.for_env(CHEETAH))
