"""Bootstrapped confidence intervals of a sweep's front metrics across its seeds.

A sweep runs every preference with several seeds; the front shown is the mean return per
preference. How much would its hypervolume or expected utility change with other seeds? The
bootstrap resamples the seeds with replacement (a seed's episodes stay together), recomputes
the mean front and its metrics per resample, and reports the percentile interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import (
    FloatArray,
    as_count,
    as_point_set,
    as_vector,
    require_non_empty,
)
from paretoscope.metrics.indicators import hypervolume
from paretoscope.metrics.utility import checked_weights

METRICS = ("hypervolume", "expected utility")


@dataclass(frozen=True)
class Interval:
    """A metric's value on the full sample and its bootstrap percentile interval."""

    estimate: float
    low: float
    high: float
    level: float
    resamples: int


def _seed_codes(seeds: object, length: int) -> np.ndarray:
    ids = np.asarray(seeds)
    if ids.ndim != 1 or len(ids) != length:
        raise ParetoscopeError(
            f"seeds: expected one seed per episode ({length},), got shape {ids.shape}"
        )
    if ids.dtype.kind == "f" and not np.isfinite(ids).all():
        raise ParetoscopeError("seeds: expected seeds, found a NaN or infinite one")
    _, codes = np.unique(ids, return_inverse=True)
    return np.asarray(codes, dtype=np.int64).reshape(-1)


def _level(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise ParetoscopeError(f"level: expected a number between 0 and 1, got {value!r}")
    level = float(value)
    if not 0.0 < level < 1.0:
        raise ParetoscopeError(f"level: expected a number strictly between 0 and 1, got {level}")
    return level


def _metrics_of(
    weights_per_seed: np.ndarray,
    sums: FloatArray,
    counts: FloatArray,
    reference: FloatArray,
    weights: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Hypervolume and expected utility of the mean front for each row of seed multiplicities.

    `weights_per_seed` (R, S) says how often each seed was drawn; `sums` (P, S, k) and `counts`
    (P, S) are the per (preference, seed) sums of returns and numbers of episodes. A preference
    none of whose seeds was drawn is left out of that resample's front.
    """
    total = np.einsum("rs,psk->rpk", weights_per_seed, sums)
    episodes = weights_per_seed @ counts.T  # (R, P)
    present = episodes > 0
    means = total / np.where(present, episodes, 1.0)[..., None]
    utilities = np.where(present[..., None], means @ weights.T, -np.inf)  # (R, P, W)
    expected = utilities.max(axis=1).mean(axis=1)
    volumes = np.array(
        [hypervolume(front[keep], reference) for front, keep in zip(means, present, strict=True)]
    )
    return volumes, expected


def bootstrap_front_metrics(
    preferences: object,
    returns: object,
    seeds: object,
    reference_point: object,
    weights: object | None = None,
    resamples: int = 1000,
    level: float = 0.95,
    random_seed: int = 0,
) -> dict[str, Interval]:
    """Bootstrap intervals of the mean front's hypervolume and expected utility across seeds.

    One row per episode: `preferences` and `returns` (N, k), `seeds` (N,). Episodes with the
    same preference row are averaged into one front point. Each resample draws as many seeds
    as there are, with replacement, from the distinct seeds (sorted): ``numpy.random.
    default_rng(random_seed).integers(0, S, size=(resamples, S))``, so the result is
    deterministic for a given `random_seed`; a seed drawn twice counts twice in the mean.
    Per resample: the mean return per preference over the drawn seeds' episodes, its
    hypervolume above `reference_point` (`paretoscope.metrics.hypervolume`) and its expected utility
    over `weights` (default: the sweep's distinct preferences); dominated points change
    neither, so no front is filtered first. The interval is the (1 - level) / 2 and
    (1 + level) / 2 quantiles of the resampled values; `estimate` is the metric of the full
    sample. With one seed every resample is the full sample, so low == high == estimate: one
    seed says nothing about the spread across seeds.

    Keys: "hypervolume" and "expected utility".
    """
    reference = as_vector("reference_point", reference_point)
    n_obj = reference.size
    prefs = as_point_set("preferences", preferences, n_obj=n_obj)
    values = as_point_set("returns", returns, n_obj=n_obj)
    require_non_empty("returns", values, "the bootstrap needs at least one episode")
    if len(prefs) != len(values):
        raise ParetoscopeError(
            f"preferences: expected one row per episode ({len(values)}), got {len(prefs)}"
        )
    seed_codes = _seed_codes(seeds, len(values))
    count = as_count("resamples", resamples, 1)
    confidence = _level(level)
    distinct, preference_codes = np.unique(prefs, axis=0, return_inverse=True)
    preference_codes = preference_codes.reshape(-1)
    utility_weights = checked_weights(distinct if weights is None else weights, n_obj)

    n_seeds = int(seed_codes.max()) + 1
    sums = np.zeros((len(distinct), n_seeds, n_obj))
    np.add.at(sums, (preference_codes, seed_codes), values)
    counts = np.zeros((len(distinct), n_seeds))
    np.add.at(counts, (preference_codes, seed_codes), 1.0)

    full_hv, full_eu = _metrics_of(np.ones((1, n_seeds)), sums, counts, reference, utility_weights)
    rng = np.random.default_rng(random_seed)
    draws = rng.integers(0, n_seeds, size=(count, n_seeds))
    multiplicities = np.zeros((count, n_seeds))
    np.add.at(multiplicities, (np.arange(count)[:, None], draws), 1.0)
    volumes, expected = _metrics_of(multiplicities, sums, counts, reference, utility_weights)

    tail = (1.0 - confidence) / 2.0
    intervals = {}
    for name, estimate, resampled in (
        ("hypervolume", full_hv[0], volumes),
        ("expected utility", full_eu[0], expected),
    ):
        low, high = np.quantile(resampled, [tail, 1.0 - tail])
        intervals[name] = Interval(
            estimate=float(estimate),
            low=float(low),
            high=float(high),
            level=confidence,
            resamples=count,
        )
    return intervals
