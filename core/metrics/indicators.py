"""Indicators of one front on its own: hypervolume, sparsity, largest gap, cardinality, and a
summary.

All work on (N, n_obj) arrays of returns to maximise. Empty sets give documented values
(hypervolume 0, sparsity 0, cardinality 0) so a filtered-away selection still displays.
"""

from __future__ import annotations

from dataclasses import dataclass

import moocore
import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray, as_point_set, as_vector
from paretoscope.metrics.dominance import pareto_front
from paretoscope.metrics.utility import checked_weights, expected_utility


def hypervolume(points: object, reference_point: object) -> float:
    """Exact volume dominated by the points and bounded below by `reference_point`.

    `reference_point` is a vector of n_obj numbers (PEDA and PGMORL use zeros). Points that do
    not strictly exceed it in every objective contribute nothing, as in PEDA, which drops
    points with a negative coordinate. An empty set, or one with no such point, gives 0.0.
    Exact via moocore (O(n log n) in 2-D and 3-D; cost grows fast beyond 4 objectives).
    """
    reference = as_vector("reference_point", reference_point)
    array = as_point_set("points", points, n_obj=reference.size)
    useful = array[(array > reference).all(axis=1)]
    if len(useful) == 0:
        return 0.0
    return float(moocore.hypervolume(useful, ref=reference, maximise=True))


def _sparsity_of_front(front: FloatArray) -> float:
    """PGMORL's sparsity of points that are already a front (see `sparsity`)."""
    if len(front) < 2:
        return 0.0
    gaps = np.diff(np.sort(front, axis=0), axis=0)
    return float((gaps**2).sum() / (len(front) - 1))


def sparsity(points: object) -> float:
    """PGMORL's sparsity of the front: lower means denser. 0.0 when it has fewer than 2 points.

    On the distinct non-dominated points, for each objective sort the values and add the
    squared gaps between neighbours; sum over objectives and divide by (N - 1). It rewards a
    few close points, so read it next to the cardinality.
    """
    return _sparsity_of_front(pareto_front(points))


def largest_gap(points: object) -> float:
    """The largest distance between neighbouring points of a two-objective front, with each
    objective scaled by the front's own range (so 1.0 is the whole extent of one objective).

    On the distinct non-dominated points, sorted along the first objective (on a 2-D front the
    second then falls); 0.0 with fewer than 2 points. It says how evenly a front covers its
    trade-off: a front with a hole in the middle has a gap near 1 whatever its size. An
    objective on which the front does not vary is left unscaled (its differences are 0).
    """
    front = pareto_front(points)
    if len(front) and front.shape[1] != 2:
        raise ParetoscopeError(
            f"largest_gap: defined for two objectives (neighbours along the front), got "
            f"{front.shape[1]}"
        )
    if len(front) < 2:
        return 0.0
    extent = front.max(axis=0) - front.min(axis=0)
    scaled = front / np.where(extent > 0, extent, 1.0)
    ordered = scaled[np.argsort(scaled[:, 0], kind="stable")]
    return float(np.sqrt((np.diff(ordered, axis=0) ** 2).sum(axis=1)).max())


def cardinality(points: object) -> int:
    """Number of distinct non-dominated points (0 for an empty set)."""
    return len(pareto_front(points))


@dataclass(frozen=True)
class FrontSummary:
    """The headline numbers of one front, as the evaluation engine and dashboard show them.

    `expected_utility` is None when no weights were given and NaN for an empty set.
    """

    hypervolume: float
    sparsity: float
    cardinality: int
    expected_utility: float | None


def front_summary(
    points: object, reference_point: object, weights: object | None = None
) -> FrontSummary:
    """Hypervolume, sparsity, cardinality and (with `weights`) expected utility in one call."""
    reference = as_vector("reference_point", reference_point)
    array = as_point_set("points", points, n_obj=reference.size)
    front = pareto_front(array)
    utility: float | None = None
    if weights is not None:
        checked = checked_weights(weights, reference.size)
        utility = float("nan") if len(array) == 0 else expected_utility(front, checked)
    return FrontSummary(
        hypervolume=hypervolume(front, reference),
        sparsity=_sparsity_of_front(front),
        cardinality=len(front),
        expected_utility=utility,
    )
