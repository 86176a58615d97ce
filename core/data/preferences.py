"""The preference distributions D4MORL was collected with: uniform, wide and narrow.

Each distribution works inside per-objective bounds [low_i, high_i] (in D4MORL, the range of
the behaviour policies' normalised returns; [0, 1] when unknown):
- uniform: flat Dirichlet draws (normalised Exp(1)), rejecting any outside the bounds;
- wide: a Dirichlet draw whose concentrations are U(0, 1e7) (so close to normalised uniform
  numbers), mapped affinely into the bounds and normalised again;
- narrow: the same with concentrations U(1e7/3, 2e7/3) and the bounds shrunk by a third of
  their range on each side.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

Distribution = Literal["uniform", "wide", "narrow"]
DISTRIBUTION_NAMES: tuple[str, ...] = ("uniform", "wide", "narrow")

_CONCENTRATION_SCALE = 1e7
# Uniform rejection sampling gives up after this many draws per wanted preference.
_MAX_DRAWS_PER_PREFERENCE = 10_000


def check_bounds(bounds: object, n_obj: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) arrays of length n_obj from a (n_obj, 2) array of [low, high] rows or None."""
    if bounds is None:
        return np.zeros(n_obj), np.ones(n_obj)
    array = np.asarray(bounds, dtype=np.float64)
    if array.shape != (n_obj, 2) or not np.isfinite(array).all():
        raise ParetoscopeError(
            f"preference bounds: expected {n_obj} pairs [low, high], got shape {array.shape}"
        )
    low, high = array[:, 0].copy(), array[:, 1].copy()
    if (low < 0).any() or (high > 1).any() or (low > high).any():
        raise ParetoscopeError(
            f"preference bounds: need 0 <= low <= high <= 1 per objective, got {array.tolist()}"
        )
    if low.sum() > 1 or high.sum() < 1:
        raise ParetoscopeError(
            f"preference bounds {array.tolist()}: no preference summing to 1 fits inside them"
        )
    return low, high


def sample_preferences(
    distribution: str,
    count: int,
    n_obj: int,
    rng: np.random.Generator,
    bounds: object = None,
) -> np.ndarray:
    """(count, n_obj) preferences drawn from a D4MORL distribution (see module docstring)."""
    if distribution not in DISTRIBUTION_NAMES:
        raise ParetoscopeError(
            f"preference distribution {briefly(distribution)}: "
            f"expected one of {', '.join(DISTRIBUTION_NAMES)}"
        )
    if count < 0:
        raise ParetoscopeError(f"preference count must be >= 0, got {count}")
    low, high = check_bounds(bounds, n_obj)
    if distribution == "uniform":
        return _uniform_within(count, low, high, rng)
    span = high - low
    if distribution == "wide":
        concentrations = rng.uniform(0.0, _CONCENTRATION_SCALE, size=(count, n_obj))
    else:
        low, high = low + span / 3, high - span / 3
        span = high - low
        concentrations = rng.uniform(
            _CONCENTRATION_SCALE / 3, 2 * _CONCENTRATION_SCALE / 3, size=(count, n_obj)
        )
    # A Dirichlet draw is a vector of Gamma(concentration) draws, normalised.
    gamma = rng.gamma(np.maximum(concentrations, np.finfo(float).tiny))
    dirichlet = gamma / gamma.sum(axis=1, keepdims=True)
    mapped = dirichlet * span + low
    totals = mapped.sum(axis=1, keepdims=True)
    if (totals <= 0).any():
        raise ParetoscopeError("preference bounds leave every weight at zero")
    return mapped / totals


def _uniform_within(
    count: int, low: np.ndarray, high: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    n_obj = low.size
    accepted: list[np.ndarray] = []
    have, drawn = 0, 0
    budget = _MAX_DRAWS_PER_PREFERENCE * max(count, 1)
    while have < count:
        if drawn >= budget:
            raise ParetoscopeError(
                f"preference bounds low={low.tolist()} high={high.tolist()}: uniform sampling "
                f"accepted only {have} of {drawn} draws; widen the bounds"
            )
        batch = max(2 * (count - have), 64)
        draws = rng.exponential(1.0, size=(batch, n_obj))
        draws /= draws.sum(axis=1, keepdims=True)
        drawn += batch
        inside = draws[((draws >= low) & (draws <= high)).all(axis=1)]
        accepted.append(inside[: count - have])
        have += len(accepted[-1])
    if not accepted:
        return np.zeros((0, n_obj))
    return np.concatenate(accepted)
