"""Utility-based indicators: how well a front serves linear preferences (EUM, MUL, regret).

The utility of a front for weights w is the best w . v over its points. Weights must be
non-negative, so the best point is always on the front and dominated points change nothing.
The regret for w is the reference front's utility minus the agent's: per weight row for a set
of points (`regret_per_preference`, whose maximum is MUL), or for a sweep that gives one return
per preference, each judged only by its own row (`sweep_regret`).
"""

from __future__ import annotations

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import (
    FloatArray,
    as_point_set,
    require_non_empty,
    require_non_negative,
)

# Largest (points x weights) utility table built at once.
_BLOCK_ELEMENTS = 4_000_000


def checked_weights(weights: object, n_obj: int) -> FloatArray:
    """Validate a (M, n_obj) block of non-negative weights with at least one row."""
    array = as_point_set("weights", weights, n_obj=n_obj)
    require_non_empty("weights", array, "utilities are averaged over weight vectors")
    require_non_negative("weights", array)
    return array


def best_utilities(points: FloatArray, weights: FloatArray) -> FloatArray:
    """For each weight row, the largest w . v over the point rows, shape (M,)."""
    block = max(1, _BLOCK_ELEMENTS // max(1, len(points)))
    best = np.empty(len(weights), dtype=np.float64)
    for start in range(0, len(weights), block):
        best[start : start + block] = (points @ weights[start : start + block].T).max(axis=0)
    return best


def expected_utility(points: object, weights: object) -> float:
    """Expected utility (EUM): the mean over weight rows of max_v w . v. Higher is better.

    `points` is (N, n_obj) with N >= 1, `weights` (M, n_obj), non-negative, M >= 1 (e.g. from
    `preference_grid` or `random_preferences`). An empty point set has no utility: it raises
    ParetoscopeError.
    """
    array = as_point_set("points", points)
    require_non_empty("points", array, "an empty front has no utility")
    return float(best_utilities(array, checked_weights(weights, array.shape[1])).mean())


def maximum_utility_loss(points: object, reference_front: object, weights: object) -> float:
    """Maximum utility loss (MUL): max over weights of (best w . r on reference - best on points).

    Lower is better; 0 means the front matches the reference for every weight, and the value
    is negative when the front beats the reference for every weight (it is not clipped).
    Either set empty raises ParetoscopeError.
    """
    return float(regret_per_preference(points, reference_front, weights).max())


def regret_per_preference(points: object, reference_front: object, weights: object) -> FloatArray:
    """For each weight row w: best w . r on the reference front minus best w . v on the points.

    Shape (M,), one entry per weight row. 0 where the points serve w as well as the reference
    does; negative where they serve it better (not clipped: against an approximate front an
    agent can win). `maximum_utility_loss` is its maximum. Either set empty raises
    ParetoscopeError.
    """
    array = as_point_set("points", points)
    require_non_empty("points", array, "an empty front has no utility")
    reference = as_point_set("reference_front", reference_front, n_obj=array.shape[1])
    require_non_empty("reference_front", reference, "the loss is measured against it")
    checked = checked_weights(weights, array.shape[1])
    return best_utilities(reference, checked) - best_utilities(array, checked)


def sweep_regret(reference_front: object, weights: object, returns: object) -> FloatArray:
    """Regret of a preference sweep: best w_i . r on the reference front minus w_i . returns_i.

    `returns` (M, n_obj) holds the agent's return for each weight row of `weights` (M, n_obj),
    row for row (e.g. the mean return of the episodes conditioned on w_i). Unlike
    `regret_per_preference`, return i counts only for w_i: a return that serves another
    preference better does not lower regret i. Shape (M,), negative where a return beats the
    reference (not clipped). An empty reference or mismatched rows raise ParetoscopeError.
    """
    reference = as_point_set("reference_front", reference_front)
    require_non_empty("reference_front", reference, "the regret is measured against it")
    n_obj = reference.shape[1]
    checked = checked_weights(weights, n_obj)
    achieved = as_point_set("returns", returns, n_obj=n_obj)
    if len(achieved) != len(checked):
        raise ParetoscopeError(
            f"returns: expected one row per weight row ({len(checked)}), got {len(achieved)} "
            f"(shape {achieved.shape})"
        )
    return best_utilities(reference, checked) - np.einsum("ij,ij->i", checked, achieved)
