"""Preference helpers of the dashboard: grid snapping, simplex sliders, URL text forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretoscope.dashboard.preferences import (
    format_vector,
    nearest_row,
    normalise,
    parse_preference,
    parse_vector,
    rebalance,
    snap,
    tour_path,
)
from paretoscope.errors import ParetoscopeError


def _grid(n_obj: int, granularity: int) -> np.ndarray:
    rows = [
        counts
        for counts in itertools.product(range(granularity + 1), repeat=n_obj)
        if sum(counts) == granularity
    ]
    return np.array(rows, dtype=float) / granularity


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=3),
    st.integers(1, 12),
)
def test_snap_gives_the_nearest_grid_point(weights: list[float], granularity: int) -> None:
    snapped = snap(weights, granularity)
    target = normalise(weights)
    grid = _grid(3, granularity)
    assert snapped.sum() == pytest.approx(1.0)
    # On the grid...
    assert np.abs(grid - snapped).sum(axis=1).min() < 1e-12
    # ... and no grid point is closer (L1) to the normalised weights.
    best = np.abs(grid - target).sum(axis=1).min()
    assert np.abs(snapped - target).sum() <= best + 1e-9


def test_normalise_and_snap_edge_cases() -> None:
    np.testing.assert_allclose(normalise([0, 0, 0]), [1 / 3] * 3)
    np.testing.assert_allclose(normalise([2, -1, 2]), [0.5, 0, 0.5])
    np.testing.assert_allclose(snap([0.333, 0.333, 0.334], 20).sum(), 1.0)
    with pytest.raises(ParetoscopeError):
        snap([0.5, 0.5], 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=5),
    st.data(),
)
def test_rebalance_stays_on_the_simplex(weights: list[float], data: st.DataObject) -> None:
    current = normalise(weights)
    changed = data.draw(st.integers(0, len(current) - 1))
    value = data.draw(st.floats(0, 1, allow_nan=False))
    result = rebalance(current, changed, value)
    assert result.sum() == pytest.approx(1.0)
    assert result[changed] == pytest.approx(value)
    assert (result >= -1e-12).all()
    others = [i for i in range(len(current)) if i != changed]
    if current[others].sum() > 1e-9 and value < 1:
        # The other entries keep their proportions (up to underflow of subnormal weights).
        np.testing.assert_allclose(
            result[others] / result[others].sum(),
            current[others] / current[others].sum(),
            atol=1e-12,
        )


def test_rebalance_splits_evenly_when_the_others_are_zero() -> None:
    np.testing.assert_allclose(rebalance([1.0, 0.0, 0.0], 0, 0.4), [0.4, 0.3, 0.3])


def test_url_forms_round_trip_and_refuse_junk() -> None:
    vector = np.array([0.3, 0.7])
    np.testing.assert_allclose(parse_vector(format_vector(vector), 2), vector)
    assert parse_vector("", 2) is None
    with pytest.raises(ParetoscopeError, match="comma-separated"):
        parse_vector("a,b", 2)
    with pytest.raises(ParetoscopeError, match="2 finite"):
        parse_vector("1,2,3", 2)
    np.testing.assert_allclose(parse_preference("0.31,0.69", 2, 20), [0.3, 0.7])
    assert parse_preference("-1,2", 2, 20) is None
    assert parse_preference("nonsense", 2, 20) is None


def test_tour_path_and_nearest_row() -> None:
    path = tour_path(3, 5)
    np.testing.assert_allclose(path[0], [1, 0, 0])
    np.testing.assert_allclose(path[-1], [0, 0, 1])
    np.testing.assert_allclose(path.sum(axis=1), 1.0)
    with pytest.raises(ParetoscopeError):
        tour_path(2, 1)
    table = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    assert nearest_row(table, [0.6, 0.4]) == 1
    assert nearest_row(np.zeros((0, 2)), [0.5, 0.5]) is None
