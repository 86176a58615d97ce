"""Pareto dominance for maximisation: which points are non-dominated, and the front itself.

q dominates p when q >= p in every objective and q > p in at least one. PEDA colours its plots
with a tolerance: p counts as dominated only when a slightly handicapped q still dominates it.
"""

from __future__ import annotations

import bisect

import moocore
import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import BoolArray, FloatArray, as_point_set

# Largest boolean comparison block (rows x front points x objectives) built at once (4+ objectives).
_BLOCK_ELEMENTS = 4_000_000


def handicap(points: FloatArray, tolerance: float) -> FloatArray:
    """Lower every coordinate by `tolerance` times its magnitude: v - tolerance * |v|.

    For non-negative values this is PEDA's v * (1 - tolerance). For negative values PEDA's
    product would move v up (towards 0) and so make q stronger; subtracting the magnitude keeps
    the handicap a handicap whatever the sign.
    """
    return points - tolerance * np.abs(points)


def _covered_2d(candidates: FloatArray, front: FloatArray) -> BoolArray:
    """`_covered` for 2 objectives in O((N + K) log K): sorted by the first objective, a front's
    second objective decreases, so the front point with the smallest first value >= c's has
    the largest second value among those that could cover c."""
    order = np.argsort(front[:, 0], kind="stable")
    first, second = front[order, 0], front[order, 1]
    index = np.searchsorted(first, candidates[:, 0], side="left")
    found = index < len(first)
    return np.asarray(found & (second[np.minimum(index, len(first) - 1)] >= candidates[:, 1]))


def _covered_3d(candidates: FloatArray, front: FloatArray) -> BoolArray:
    """`_covered` for 3 objectives by a sweep in O((N + K) log K) comparisons.

    Points are visited by decreasing first objective (front points before candidates on a
    tie); the front points seen so far are kept as a 2-D staircase over the other two
    objectives (second increasing, third decreasing, only its maximal points), and a candidate
    is covered when the staircase point with the smallest second value >= its own has a third
    value >= its own.
    """
    points = np.concatenate([front, candidates])
    is_candidate = np.arange(len(points)) >= len(front)
    order = np.lexsort((is_candidate, -points[:, 0]))
    seconds, thirds = points[:, 1].tolist(), points[:, 2].tolist()
    stair_second: list[float] = []
    stair_minus_third: list[float] = []  # negated, so both lists are increasing for bisect
    covered = np.zeros(len(points), dtype=bool)
    for index in order.tolist():
        second, minus_third = seconds[index], -thirds[index]
        position = bisect.bisect_left(stair_second, second)
        reached = position < len(stair_second) and stair_minus_third[position] <= minus_third
        if index >= len(front):
            covered[index] = reached
            continue
        if reached:  # this front point adds nothing to the staircase
            continue
        if position < len(stair_second) and stair_second[position] == second:
            position += 1  # same second value, smaller third: replaced below
        first_dropped = bisect.bisect_left(stair_minus_third, minus_third, 0, position)
        stair_second[first_dropped:position] = [second]
        stair_minus_third[first_dropped:position] = [minus_third]
    return covered[len(front) :]


def _covered(candidates: FloatArray, front: FloatArray) -> BoolArray:
    """For each candidate row, whether some front row is >= it in every objective."""
    if candidates.shape[1] == 2:
        return _covered_2d(candidates, front)
    if candidates.shape[1] == 3:
        return _covered_3d(candidates, front)
    covered = np.zeros(len(candidates), dtype=bool)
    block = max(1, _BLOCK_ELEMENTS // (len(front) * candidates.shape[1]))
    for start in range(0, len(candidates), block):
        rows = candidates[start : start + block, None, :]
        covered[start : start + block] = np.any(np.all(front[None] >= rows, axis=2), axis=1)
    return covered


def _dominated_by(candidates: FloatArray, front: FloatArray) -> BoolArray:
    """For each candidate row, whether some row of `front` dominates it.

    `front` must be distinct and mutually non-dominated. Then a candidate equal to a front
    point is dominated by none (another front point above it would dominate that one), and
    any other candidate is dominated exactly when some front point is >= it everywhere.
    """
    if len(front) == 0 or len(candidates) == 0:
        return np.zeros(len(candidates), dtype=bool)
    front_rows = set(map(tuple, front.tolist()))
    on_front = np.array([tuple(row) in front_rows for row in candidates.tolist()], dtype=bool)
    return _covered(candidates, front) & ~on_front


def non_dominated(points: object, tolerance: float = 0.0) -> BoolArray:
    """Mask of the points that no other point dominates (maximisation), shape (N,).

    Duplicates of a non-dominated point are all kept (equal points do not dominate each other);
    use `np.flatnonzero(mask)` for indices. With `tolerance` t in [0, 1) a point is dominated
    only when some other point q, handicapped to q - t*|q| (PEDA's q*(1-t) for q >= 0),
    still dominates it, so the mask grows with t. An empty set gives an empty mask.
    """
    array = as_point_set("points", points)
    if not isinstance(tolerance, (int, float, np.number)) or not 0.0 <= tolerance < 1.0:
        raise ParetoscopeError(f"tolerance: expected a number in [0, 1), got {tolerance!r}")
    if len(array) == 0:
        return np.zeros(0, dtype=bool)
    strict = np.asarray(moocore.is_nondominated(array, maximise=True, keep_weakly=True), dtype=bool)
    if tolerance == 0.0:
        return strict
    # Handicapped dominance implies plain dominance, so only strictly dominated points can
    # change, and only front points need be tried as dominators: if q is dominated by q', the
    # handicapped q' is at least the handicapped q, because v - t|v| increases with v.
    dominators = handicap(array[strict], tolerance)
    # Re-filter: rounding in the handicap could, in principle, merge or order distinct points.
    kept = moocore.is_nondominated(dominators, maximise=True, keep_weakly=True)
    dominators = np.unique(dominators[np.asarray(kept, dtype=bool)], axis=0)
    mask = strict.copy()
    candidates = np.flatnonzero(~strict)
    mask[candidates] = ~_dominated_by(array[candidates], dominators)
    return mask


def check_margin(margin: object) -> float:
    """A dominance margin (`non_dominated_by_margin`): a number in [0, 1)."""
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.number)):
        raise ParetoscopeError(f"margin: expected a number in [0, 1), got {margin!r}")
    if not 0.0 <= float(margin) < 1.0:
        raise ParetoscopeError(f"margin: expected a number in [0, 1), got {margin!r}")
    return float(margin)


def non_dominated_by_margin(points: object, margin: float) -> BoolArray:
    """Mask of the points that no other point dominates by a margin, shape (N,): q beats p
    when q >= p - m in every objective and q > p + m in at least one, with m = `margin` times
    each objective's range over the points. Margin 0 is plain dominance (`non_dominated`).

    For sets whose points carry noise, such as policies evaluated on a few episodes: two
    policies equal up to noise in one objective are told apart by the others. No two points beat
    each other, so the non-dominated points always keep at least one. O(N²).
    """
    array = as_point_set("points", points)
    fraction = check_margin(margin)
    if len(array) == 0:
        return np.zeros(0, dtype=bool)
    slack = fraction * (array.max(axis=0) - array.min(axis=0))
    no_worse = (array[:, None, :] >= array[None, :, :] - slack).all(axis=2)  # [q, p]
    better = (array[:, None, :] > array[None, :, :] + slack).any(axis=2)
    beaten = no_worse & better
    np.fill_diagonal(beaten, False)
    return ~beaten.any(axis=0)


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
