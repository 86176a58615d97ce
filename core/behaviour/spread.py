"""A few policies that cover a front: farthest-point sampling in front-normalised space.

The returns are min-max scaled over the non-dominated points (`paretoscope.decision`'s
scaling: 1 at the ideal, 0 at the nadir, a constant objective 0), so every objective counts
alike whatever its units. The selection starts from the knee and the extremes (the best point
of each objective), then adds, one at a time, the distinct non-dominated point farthest (in
Euclidean distance) from those already chosen; once the front is used up it goes on with the
dominated points the same way, so `count` policies are shown whenever that many distinct
returns exist. Ties go to the lowest row index, so the selection is deterministic.
"""

from __future__ import annotations

import numpy as np

from paretoscope.decision import knee_point
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import as_point_set, require_non_empty
from paretoscope.metrics.dominance import non_dominated

# Scores within this (relative) count as equal: the lowest row index wins.
_TIE = 1e-12


def front_scaled(points: object) -> np.ndarray:
    """`points` (N, k) scaled per objective over their non-dominated rows: 0 at the front's
    worst value, 1 at its best (a constant objective is 0)."""
    array = as_point_set("points", points)
    require_non_empty("points", array, "a front needs at least one point")
    front = array[non_dominated(array)]
    low, high = front.min(axis=0), front.max(axis=0)
    span = np.where(high > low, high - low, np.inf)
    return np.asarray((array - low) / span, dtype=np.float64)


def _first_rows(array: np.ndarray) -> np.ndarray:
    """Indices of the first row of each distinct value, increasing."""
    _, first = np.unique(array, axis=0, return_index=True)
    return np.sort(first)


def spread_seeds(points: object) -> list[int]:
    """The rows the selection starts from, in this order: the knee, then the best point of
    each objective (a duplicate kept once; ties to the lowest row)."""
    array = as_point_set("points", points)
    require_non_empty("points", array, "a front needs at least one point")
    on_front = np.flatnonzero(non_dominated(array))
    seeds = [knee_point(array)]
    for objective in range(array.shape[1]):
        values = array[on_front, objective]
        best = on_front[values >= values.max() - _TIE * max(1.0, abs(values.max()))]
        row = int(best[0])
        if not any(np.array_equal(array[row], array[seed]) for seed in seeds):
            seeds.append(row)
    return seeds


def spread_selection(points: object, count: int) -> np.ndarray:
    """Rows of `points` (returns to maximise, (N, k)) for `count` policies spread along the
    front, in the order they were chosen (see the module's docstring). Fewer when `points`
    hold fewer distinct rows."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ParetoscopeError(f"count: expected a whole number >= 1, got {count!r}")
    array = as_point_set("points", points)
    scaled = front_scaled(array)
    chosen = spread_seeds(array)[: int(count)]
    distinct = _first_rows(array)
    on_front = non_dominated(array)
    for pool in (distinct[on_front[distinct]], distinct[~on_front[distinct]]):
        while len(chosen) < count:
            taken = np.asarray(chosen)
            left = np.setdiff1d(pool, taken)
            left = left[~(array[left][:, None, :] == array[taken][None, :, :]).all(2).any(1)]
            if len(left) == 0:
                break
            gaps = np.linalg.norm(scaled[left][:, None, :] - scaled[taken][None, :, :], axis=2)
            nearest = gaps.min(axis=1)
            best = nearest.max()
            chosen.append(int(left[nearest >= best - _TIE * max(1.0, best)][0]))
    return np.asarray(chosen, dtype=np.int64)
