"""The members' preferences: spread evenly over the simplex, or given and checked."""

from __future__ import annotations

import math

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import preference_grid


def default_preferences(n_obj: int, count: int) -> FloatArray:
    """`count` preferences spread evenly over the simplex, first-objective-heavy first.

    Two objectives: w₀ = 1, …, 0 evenly spaced. More: the coarsest `preference_grid` with at
    least `count` points, thinned by farthest-point selection from the corners when it has
    more. One preference: the centre (1/n, …, 1/n).
    """
    if count < 1:
        raise ParetoscopeError(f"preferences: need at least 1 member, got {count}")
    if n_obj < 2:
        raise ParetoscopeError(f"preferences: need at least 2 objectives, got {n_obj}")
    if count == 1:
        return np.full((1, n_obj), 1.0 / n_obj)
    if n_obj == 2:
        first = np.linspace(1.0, 0.0, count)
        return np.stack([first, 1.0 - first], axis=1)
    granularity = 1
    while math.comb(granularity + n_obj - 1, n_obj - 1) < count:
        granularity += 1
    grid = preference_grid(n_obj, granularity)
    if grid.shape[0] > count:
        grid = _farthest_points(grid, count)
    order = np.lexsort(grid.T[::-1])[::-1]  # descending in w₀, then w₁, ...
    return grid[order]


def _farthest_points(points: FloatArray, count: int) -> FloatArray:
    """`count` rows of `points`: the corners first, then each time the row farthest from all
    chosen so far (ties to the earlier row)."""
    corners = [int(i) for i in np.flatnonzero(np.isclose(points.max(axis=1), 1.0))]
    chosen = corners[:count]
    distance = np.full(points.shape[0], np.inf)
    for index in chosen:
        distance = np.minimum(distance, np.linalg.norm(points - points[index], axis=1))
    while len(chosen) < count:
        index = int(np.argmax(distance))
        chosen.append(index)
        distance = np.minimum(distance, np.linalg.norm(points - points[index], axis=1))
    return points[sorted(chosen)]


def check_member_preferences(preferences: object, n_obj: int) -> FloatArray:
    """A (K, n_obj) array of distinct non-negative rows summing to 1, or a ParetoscopeError."""
    try:
        array = np.array(preferences, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"preferences: expected numbers of shape (K, {n_obj})") from None
    if array.ndim != 2 or array.shape[1] != n_obj or array.shape[0] == 0:
        raise ParetoscopeError(f"preferences: expected shape (K, {n_obj}), got {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ParetoscopeError("preferences: entries must be finite and non-negative")
    sums = array.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ParetoscopeError(f"preferences: row {bad} sums to {sums[bad]:.6g}, expected 1")
    if len({tuple(row) for row in array.tolist()}) != array.shape[0]:
        raise ParetoscopeError("preferences: every member needs a different preference")
    return array
