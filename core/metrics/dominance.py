"""Pareto dominance for maximisation: which points are non-dominated, and the front itself.

q dominates p when q >= p in every objective and q > p in at least one. PEDA colours its plots
with a tolerance: p counts as dominated only when a slightly handicapped q still dominates it.
"""

from __future__ import annotations

import moocore
import numpy as np

from core.errors import ParetoscopeError
from core.metrics._validation import BoolArray, FloatArray, as_point_set

# Largest boolean comparison block (rows x front points x objectives) built at once.
_BLOCK_ELEMENTS = 4_000_000


def handicap(points: FloatArray, tolerance: float) -> FloatArray:
    """Lower every coordinate by `tolerance` times its magnitude: v - tolerance * |v|.

    For non-negative values this is PEDA's v * (1 - tolerance). For negative values PEDA's
    product would move v up (towards 0) and so make q stronger; subtracting the magnitude keeps
    the handicap a handicap whatever the sign.
    """
    return points - tolerance * np.abs(points)


def _dominated_by_front_2d(candidates: FloatArray, front: FloatArray) -> BoolArray:
    """Like `_dominated_by` for 2 objectives and a front of distinct, mutually non-dominated
    points, in O((N + K) log K): sorted by the first objective the second one decreases, so
    the front point with the smallest first value >= c's is the only one worth trying."""
    order = np.argsort(front[:, 0], kind="stable")
    first, second = front[order, 0], front[order, 1]
    index = np.searchsorted(first, candidates[:, 0], side="left")
    found = index < len(first)
    nearest = np.minimum(index, len(first) - 1)
    best_first, best_second = first[nearest], second[nearest]
    at_least = found & (best_second >= candidates[:, 1])
    better = (best_first > candidates[:, 0]) | (best_second > candidates[:, 1])
    return np.asarray(at_least & better)


def _dominated_by(candidates: FloatArray, dominators: FloatArray) -> BoolArray:
    """For each candidate row, whether some dominator row dominates it (blockwise O(N * K)).

    `dominators` must be distinct and mutually non-dominated (a front).
    """
    result = np.zeros(len(candidates), dtype=bool)
    if len(dominators) == 0 or len(candidates) == 0:
        return result
    if candidates.shape[1] == 2:
        return _dominated_by_front_2d(candidates, dominators)
    block = max(1, _BLOCK_ELEMENTS // (len(dominators) * candidates.shape[1]))
    for start in range(0, len(candidates), block):
        rows = candidates[start : start + block, None, :]
        at_least = np.all(dominators[None, :, :] >= rows, axis=2)
        better = np.any(dominators[None, :, :] > rows, axis=2)
        result[start : start + block] = np.any(at_least & better, axis=1)
    return result


def non_dominated(points: object, tolerance: float = 0.0) -> BoolArray:
    """Mask of the points that no other point dominates (maximisation), shape (N,).

    Duplicates of a non-dominated point are all kept (equal points do not dominate each other);
    use `np.flatnonzero(mask)` for indices. With `tolerance` t in [0, 1) a point is dominated
    only when some other point q, handicapped to q - t*|q| (PEDA's q*(1-t) for q >= 0),
    still dominates it, so the mask grows with t. An empty set gives an empty mask.
    """
    array = as_point_set("points", points)
    if not 0.0 <= tolerance < 1.0:
        raise ParetoscopeError(f"tolerance: expected a number in [0, 1), got {tolerance!r}")
    if len(array) == 0:
        return np.zeros(0, dtype=bool)
    strict = np.asarray(moocore.is_nondominated(array, maximise=True, keep_weakly=True), dtype=bool)
    if tolerance == 0.0:
        return strict
    # Handicapped dominance implies plain dominance, so only strictly dominated points can
    # change, and only front points need be tried as dominators: if q is dominated by q', the
    # handicapped q' is at least the handicapped q, because v - t|v| increases with v.
    dominators = handicap(np.unique(array[strict], axis=0), tolerance)
    mask = strict.copy()
    candidates = np.flatnonzero(~strict)
    mask[candidates] = ~_dominated_by(array[candidates], dominators)
    return mask


def pareto_front(points: object) -> FloatArray:
    """The distinct non-dominated points, sorted by the first objective then the others.

    Duplicates collapse to one row: the front is a set of outcomes, and repeated outcomes must
    not inflate the cardinality or shrink the sparsity. An empty set gives shape (0, n_obj).
    """
    array = as_point_set("points", points)
    if len(array) == 0:
        return array
    front = array[non_dominated(array)]
    return np.unique(front, axis=0)
