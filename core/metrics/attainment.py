"""Empirical attainment functions (EAF) of several runs of one agent, and the difference
between two agents' EAFs: where across seeds a front reliably reaches, and where one agent
reaches more often than another.

A run is one seed's approximation set. A point z (a return vector) is attained by a run when
one of its points weakly dominates z (is >= z in every objective: maximisation throughout).
moocore computes both in its minimisation convention; the returns are negated on the way in
and out.
"""

from __future__ import annotations

from dataclasses import dataclass

import moocore
import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray, as_point_set, require_non_empty

LEVELS = ("best", "median", "worst")


@dataclass(frozen=True)
class AttainmentSurfaces:
    """The best, median and worst attainment surfaces of `runs` runs.

    `surfaces[level]` is an (M, k) array of the non-dominated points that bound the region
    attained at that level, sorted by the first objective: best = attained by at least 1 run,
    median = by at least ceil(runs / 2) runs (moocore's 50th percentile: 2 of 4, 3 of 5),
    worst = by all runs.
    """

    levels: tuple[str, ...]
    surfaces: dict[str, np.ndarray]
    runs: int


def _run_codes(name: str, run_ids: object, length: int) -> np.ndarray:
    """Each point's run as 1..n (in sorted order of the ids), checking one id per point."""
    ids = np.asarray(run_ids)
    if ids.ndim != 1 or len(ids) != length:
        raise ParetoscopeError(
            f"{name}: expected one run id per point ({length},), got shape {ids.shape}"
        )
    if ids.dtype.kind == "f" and not np.isfinite(ids).all():
        raise ParetoscopeError(f"{name}: expected run ids, found a NaN or infinite id")
    try:
        _, codes = np.unique(ids, return_inverse=True)
    except TypeError as error:
        raise ParetoscopeError(f"{name}: expected comparable run ids ({error})") from None
    return np.asarray(codes, dtype=np.int64).reshape(-1) + 1


def _runs(
    points_name: str, points: object, runs_name: str, run_ids: object, n_obj: int | None = None
) -> tuple[FloatArray, np.ndarray]:
    """Validated points with their run codes, sorted by run (moocore wants each run together)."""
    array = as_point_set(points_name, points, n_obj=n_obj)
    require_non_empty(points_name, array, "an attainment function needs at least one run")
    codes = _run_codes(runs_name, run_ids, len(array))
    order = np.argsort(codes, kind="stable")
    return array[order], codes[order]


def median_level(runs: int) -> int:
    """The number of runs that must attain a point on the median surface: moocore's
    percentile-50 level, ceil(runs / 2) (at least 1)."""
    return max(1, -(-runs // 2))


def attainment_surfaces(points: object, run_ids: object) -> AttainmentSurfaces:
    """The best, median and worst attainment surfaces of the runs (maximisation).

    `points` (N, k) are returns with k = 2 or 3 (moocore's EAF), `run_ids` (N,) says which run
    (seed) each point belongs to. With one run the three surfaces are that run's front.
    """
    array, codes = _runs("points", points, "run_ids", run_ids)
    if array.shape[1] not in (2, 3):
        raise ParetoscopeError(
            f"points: expected 2 or 3 objectives for the attainment function, got "
            f"{array.shape[1]} (choose two or three objectives)"
        )
    runs = int(codes.max())
    wanted = {"best": 1, "median": median_level(runs), "worst": runs}
    surfaces: dict[str, np.ndarray] = {}
    for level, attained_by in wanted.items():
        computed = moocore.eaf(-array, codes, percentiles=[100.0 * attained_by / runs])
        surface = -np.asarray(computed[:, :-1], dtype=np.float64)
        surfaces[level] = surface[np.lexsort(surface.T[::-1])]
    return AttainmentSurfaces(levels=LEVELS, surfaces=surfaces, runs=runs)


@dataclass(frozen=True)
class EafDifference:
    """Where one agent's EAF exceeds the other's, on two objectives (maximisation).

    `a_better` and `b_better` are (R, 5) arrays, one rectangle per row:
    ``x_low, y_low, x_high, y_high, difference``. The rectangle is the closed box
    [x_low, x_high] x [y_low, y_high] of return space; x_low or y_low is -inf where the region
    goes on without bound towards worse returns. `difference` is in (0, 1]: the fraction of
    the better agent's runs that attain the box minus the fraction of the other agent's.
    `runs` is the number of runs of each agent.
    """

    a_better: np.ndarray
    b_better: np.ndarray
    runs: int


def eaf_difference(
    points_a: object, runs_a: object, points_b: object, runs_b: object
) -> EafDifference:
    """The regions where agent A's EAF exceeds B's and where B's exceeds A's (moocore.eafdiff).

    Two objectives only, and the same number of runs on each side (moocore's difference
    compares counts of runs); otherwise ParetoscopeError.
    """
    a, codes_a = _runs("points_a", points_a, "runs_a", runs_a)
    if a.shape[1] != 2:
        raise ParetoscopeError(
            f"points_a: expected 2 objectives for the EAF difference, got {a.shape[1]} "
            "(choose two objectives)"
        )
    b, codes_b = _runs("points_b", points_b, "runs_b", runs_b, n_obj=2)
    n_a, n_b = int(codes_a.max()), int(codes_b.max())
    if n_a != n_b:
        raise ParetoscopeError(
            f"runs_b: expected as many runs as runs_a ({n_a}), got {n_b} "
            "(compare the same number of seeds)"
        )
    try:
        rectangles = moocore.eafdiff(
            np.column_stack([a, codes_a]),
            np.column_stack([b, codes_b]),
            intervals=n_a,
            maximise=True,
            rectangles=True,
        )
    except ValueError as error:
        # moocore fails to reshape its empty answer when the two EAFs are equal everywhere
        # (the same fronts, or fronts that differ only by dominated points): no difference.
        if "array of size 0" not in str(error):
            raise
        rectangles = np.zeros((0, 5))
    rectangles = np.asarray(rectangles, dtype=np.float64).reshape(-1, 5)
    # After moocore's un-negation the first corner is the better one: order each axis.
    boxes = np.column_stack(
        [
            np.minimum(rectangles[:, 0], rectangles[:, 2]),
            np.minimum(rectangles[:, 1], rectangles[:, 3]),
            np.maximum(rectangles[:, 0], rectangles[:, 2]),
            np.maximum(rectangles[:, 1], rectangles[:, 3]),
            rectangles[:, 4] / n_a,
        ]
    )
    a_better = boxes[boxes[:, 4] > 0]
    b_better = boxes[boxes[:, 4] < 0]
    b_better[:, 4] = -b_better[:, 4]
    return EafDifference(a_better=a_better, b_better=b_better, runs=n_a)
