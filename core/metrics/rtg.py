"""RTG following: how closely an agent reaches the return it was asked for (PEDA's two plots).

PEDA plots, per objective, the target weighted return p_i * target_i against the achieved
p_i * R_i (ideal: the y = x line), and the target preference p_i against the achieved return
ratio R_i / sum(R). These functions turn both plots into numbers, so agents can be ranked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import (
    FloatArray,
    as_point_set,
    require_non_empty,
    require_non_negative,
)

# Preferences are compared to the simplex with this slack (float32 tables, rounding).
PREFERENCE_SUM_TOLERANCE = 1e-4


@dataclass(frozen=True)
class RtgFollowing:
    """Per-episode arrays (N, n_obj), per-objective means (n_obj,) and overall means.

    - `weighted_error` = |p_i * target_i - p_i * R_i|, in the env's reward units.
    - `relative_weighted_error` = that divided by |p_i * target_i|; NaN where it is 0 (the
      objective was not asked for, so a relative error is undefined).
    - `return_ratio` = R_i / sum(R); a NaN row where it is undefined: some return is negative
      or all are 0 (a ratio of mixed-sign returns means nothing). Shift such returns to be
      non-negative (e.g. subtract the dataset minimum) before calling, if the plot is wanted.
    - `ratio_error` = |p_i - R_i / sum(R)|, NaN where the ratio is.
    Means ignore NaN entries and are NaN only when every entry they cover is NaN. Lower is
    better for every error; `overall_*` are single numbers for ranking agents.
    """

    weighted_target: FloatArray
    weighted_return: FloatArray
    weighted_error: FloatArray
    relative_weighted_error: FloatArray
    return_ratio: FloatArray
    ratio_error: FloatArray
    mean_weighted_error: FloatArray
    mean_relative_weighted_error: FloatArray
    mean_ratio_error: FloatArray
    overall_weighted_error: float
    overall_relative_weighted_error: float
    overall_ratio_error: float


def _mean_ignoring_nan(values: FloatArray, axis: int | None) -> FloatArray:
    """Mean over the non-NaN entries; NaN (without a warning) where there are none."""
    defined = ~np.isnan(values)
    counts = defined.sum(axis=axis)
    totals = np.where(defined, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(counts > 0, totals / np.maximum(counts, 1), np.nan))


def rtg_following(targets: object, preferences: object, returns: object) -> RtgFollowing:
    """Errors between what each episode was asked for and what it achieved.

    `targets`: initial target returns per objective, unweighted, in env units (N, n_obj);
    `preferences`: non-negative rows summing to 1 (N, n_obj); `returns`: achieved (N, n_obj).
    At least one episode is required.
    """
    target_array = as_point_set("targets", targets)
    require_non_empty("targets", target_array, "RTG following needs at least one episode")
    n_episodes, n_obj = target_array.shape
    preference_array = as_point_set("preferences", preferences, n_obj=n_obj)
    return_array = as_point_set("returns", returns, n_obj=n_obj)
    for name, array in (("preferences", preference_array), ("returns", return_array)):
        if len(array) != n_episodes:
            raise ParetoscopeError(
                f"{name}: expected one row per target ({n_episodes} rows), got {len(array)}"
            )
    require_non_negative("preferences", preference_array)
    sums = preference_array.sum(axis=1)
    off_simplex = np.flatnonzero(np.abs(sums - 1.0) > PREFERENCE_SUM_TOLERANCE)
    if len(off_simplex):
        row = off_simplex[0]
        raise ParetoscopeError(
            f"preferences: expected rows summing to 1, row {row} sums to {sums[row]}"
        )

    weighted_target = preference_array * target_array
    weighted_return = preference_array * return_array
    weighted_error = np.abs(weighted_target - weighted_return)
    target_size = np.abs(weighted_target)
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.where(target_size > 0, weighted_error / target_size, np.nan)

    total = return_array.sum(axis=1, keepdims=True)
    ratio_defined = (return_array >= 0).all(axis=1, keepdims=True) & (total > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(ratio_defined, return_array / total, np.nan)
    ratio_error = np.abs(preference_array - ratio)

    return RtgFollowing(
        weighted_target=weighted_target,
        weighted_return=weighted_return,
        weighted_error=weighted_error,
        relative_weighted_error=relative,
        return_ratio=ratio,
        ratio_error=ratio_error,
        mean_weighted_error=weighted_error.mean(axis=0),
        mean_relative_weighted_error=_mean_ignoring_nan(relative, axis=0),
        mean_ratio_error=_mean_ignoring_nan(ratio_error, axis=0),
        overall_weighted_error=float(weighted_error.mean()),
        overall_relative_weighted_error=float(_mean_ignoring_nan(relative, axis=None)),
        overall_ratio_error=float(_mean_ignoring_nan(ratio_error, axis=None)),
    )
