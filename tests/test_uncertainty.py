"""Bootstrapped intervals across seeds: degenerate cases, the estimate, and a plain loop
re-implementation with the same random draws."""

from __future__ import annotations

import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import bootstrap_front_metrics, hypervolume, preference_grid

REFERENCE = (0.0, 0.0)


def sweep(seeds: list[int], granularity: int = 10, noise: float = 5.0, n_obj: int = 2):  # noqa: ANN201
    """One row per (preference, seed): returns near 100 x preference, seed-dependent noise."""
    grid = preference_grid(n_obj, granularity)
    rng = np.random.default_rng(len(seeds) + granularity)
    preferences = np.repeat(grid, len(seeds), axis=0)
    seed_column = np.tile(np.asarray(seeds), len(grid))
    returns = 100 * preferences + 20 + rng.normal(0.0, noise, size=preferences.shape)
    return preferences, returns, seed_column


def mean_front(preferences: np.ndarray, returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows: dict[tuple[float, ...], list[np.ndarray]] = {}
    for preference, value in zip(preferences, returns, strict=True):
        rows.setdefault(tuple(preference), []).append(value)
    keys = list(rows)
    return np.array(keys), np.array([np.mean(rows[key], axis=0) for key in keys])


def plain_expected_utility(points: np.ndarray, weights: np.ndarray) -> float:
    return float(np.mean([max(float(w @ p) for p in points) for w in weights]))


def test_one_seed_gives_a_degenerate_interval() -> None:
    preferences, returns, seeds = sweep([4])
    result = bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, resamples=50)
    assert set(result) == {"hypervolume", "expected utility"}
    for interval in result.values():
        assert interval.low == interval.high == interval.estimate
        assert interval.resamples == 50 and interval.level == 0.95


def test_equal_seeds_give_zero_width() -> None:
    preferences, returns, seeds = sweep([0])
    # Three seeds with the very same episodes.
    result = bootstrap_front_metrics(
        np.vstack([preferences] * 3),
        np.vstack([returns] * 3),
        np.concatenate([seeds, seeds + 1, seeds + 2]),
        REFERENCE,
    )
    for interval in result.values():
        assert interval.high - interval.low == pytest.approx(0.0, abs=1e-9)
        assert interval.low == pytest.approx(interval.estimate)


def test_the_estimate_is_the_metric_of_the_mean_front_and_inside_the_interval() -> None:
    preferences, returns, seeds = sweep([0, 1, 2, 3, 4])
    result = bootstrap_front_metrics(preferences, returns, seeds, REFERENCE)
    grid, front = mean_front(preferences, returns)
    hv = result["hypervolume"]
    assert hv.estimate == pytest.approx(hypervolume(front, REFERENCE), rel=1e-12)
    eu = result["expected utility"]
    assert eu.estimate == pytest.approx(plain_expected_utility(front, grid), rel=1e-12)
    for interval in result.values():
        assert interval.low <= interval.estimate <= interval.high
        assert interval.low < interval.high  # five noisy seeds: some spread


def test_deterministic_for_a_random_seed() -> None:
    preferences, returns, seeds = sweep([0, 1, 2, 3, 4])
    first = bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, random_seed=3)
    again = bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, random_seed=3)
    other = bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, random_seed=4)
    assert first == again
    assert first != other


@pytest.mark.parametrize("n_obj", [2, 3])
def test_matches_a_plain_loop_with_the_same_draws(n_obj: int) -> None:
    preferences, returns, seeds = sweep([10, 20, 30, 40], granularity=3, n_obj=n_obj)
    seeds = seeds.copy()
    # One episode missing: a preference that none of a resample's seeds ran is left out.
    keep = np.ones(len(seeds), dtype=bool)
    keep[1] = False
    preferences, returns, seeds = preferences[keep], returns[keep], seeds[keep]
    weights = np.random.default_rng(0).dirichlet(np.ones(n_obj), size=7)
    reference = np.full(n_obj, 10.0)
    resamples, level, random_seed = 200, 0.9, 11
    result = bootstrap_front_metrics(
        preferences, returns, seeds, reference, weights, resamples, level, random_seed
    )

    distinct = np.unique(seeds)
    draws = np.random.default_rng(random_seed).integers(
        0, len(distinct), size=(resamples, len(distinct))
    )
    volumes, utilities = [], []
    for row in draws:
        drawn_preferences, drawn_returns = [], []
        for index in row:
            mine = seeds == distinct[index]
            drawn_preferences.append(preferences[mine])
            drawn_returns.append(returns[mine])
        _, front = mean_front(np.vstack(drawn_preferences), np.vstack(drawn_returns))
        volumes.append(hypervolume(front, reference))
        utilities.append(plain_expected_utility(front, weights))
    for name, values in (("hypervolume", volumes), ("expected utility", utilities)):
        low, high = np.quantile(values, [0.05, 0.95])
        assert result[name].low == pytest.approx(low, rel=1e-10)
        assert result[name].high == pytest.approx(high, rel=1e-10)
        assert result[name].level == 0.9 and result[name].resamples == 200


def test_bad_input_is_a_paretoscope_error() -> None:
    preferences, returns, seeds = sweep([0, 1])
    with pytest.raises(ParetoscopeError, match="seeds"):
        bootstrap_front_metrics(preferences, returns, seeds[:-1], REFERENCE)
    with pytest.raises(ParetoscopeError, match="preferences"):
        bootstrap_front_metrics(preferences[:-1], returns, seeds, REFERENCE)
    broken = returns.copy()
    broken[3, 1] = np.nan
    with pytest.raises(ParetoscopeError, match="returns.*finite"):
        bootstrap_front_metrics(preferences, broken, seeds, REFERENCE)
    with pytest.raises(ParetoscopeError, match="seeds"):
        bootstrap_front_metrics(preferences, returns, np.full(len(seeds), np.nan), REFERENCE)
    with pytest.raises(ParetoscopeError, match=r"expected shape \(N, 3\)"):
        bootstrap_front_metrics(preferences, returns, seeds, (0.0, 0.0, 0.0))
    with pytest.raises(ParetoscopeError, match="level"):
        bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, level=1.5)
    with pytest.raises(ParetoscopeError, match="resamples"):
        bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, resamples=0)
    with pytest.raises(ParetoscopeError, match="weights"):
        bootstrap_front_metrics(preferences, returns, seeds, REFERENCE, weights=[[-1.0, 2.0]])
    with pytest.raises(ParetoscopeError, match="returns"):
        bootstrap_front_metrics(np.zeros((0, 2)), np.zeros((0, 2)), [], REFERENCE)
