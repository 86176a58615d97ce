"""The initial target of a return-conditioned agent: a linear model of return against preference.

PEDA asks its agents, at preference p, for the return its training data achieved near p: one
least-squares line per objective, return_i ~ p (scikit-learn's LinearRegression in PEDA). On
the simplex such a model is fixed by its values at the pure preferences e_j, so we store it as
the matrix ``corner_returns[i][j]`` = expected return of objective i at e_j, and predict
``returns(p) = corner_returns @ p``. The prediction is the *unweighted* return per objective in
the env's reward units; PEDA's own preference weighting happens inside the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from paretoscope.errors import ParetoscopeError


@dataclass(frozen=True)
class LinearTargetModel:
    """returns(p) = corner_returns @ p, one row per objective, one column per pure preference."""

    corner_returns: tuple[tuple[float, ...], ...]
    # Where the numbers come from, shown to the user (a dataset fingerprint or "PEDA published").
    source: str = ""

    def __post_init__(self) -> None:
        matrix = np.asarray(self.corner_returns, dtype=np.float64)
        n_obj = len(self.corner_returns)
        if matrix.shape != (n_obj, n_obj) or n_obj < 1 or not np.isfinite(matrix).all():
            raise ParetoscopeError(
                "target model: corner_returns must be a finite square matrix "
                f"(objectives x pure preferences), got shape {matrix.shape}"
            )

    @property
    def n_obj(self) -> int:
        return len(self.corner_returns)

    def __call__(self, preferences: np.ndarray) -> np.ndarray:
        """Expected return per objective, (B, n_obj), for preferences (B, n_obj) or (n_obj,)."""
        prefs = np.asarray(preferences, dtype=np.float64)
        single = prefs.ndim == 1
        prefs = np.atleast_2d(prefs)
        if prefs.ndim != 2 or prefs.shape[1] != self.n_obj:
            raise ParetoscopeError(
                f"preferences: expected shape (B, {self.n_obj}), got {np.shape(preferences)}"
            )
        # Summed term by term in a fixed order, not with a BLAS matmul: BLAS picks other
        # kernels (other summation orders) for other batch sizes, and a row's target must not
        # depend on the rows asked for with it.
        corners = np.asarray(self.corner_returns, dtype=np.float64)
        returns = prefs[:, :1] * corners[:, 0]
        for column in range(1, self.n_obj):
            returns = returns + prefs[:, column : column + 1] * corners[:, column]
        return returns[0] if single else returns

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "linear",
            "corner_returns": [list(row) for row in self.corner_returns],
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], n_obj: int) -> LinearTargetModel:
        """Rebuild from `to_dict` output; a malformed entry is a ParetoscopeError."""
        if not isinstance(data, Mapping) or data.get("type") != "linear":
            raise ParetoscopeError(
                f"target_model: expected an object with type 'linear', got {data!r:.80}"
            )
        try:
            rows = tuple(tuple(float(value) for value in row) for row in data["corner_returns"])
        except (KeyError, TypeError, ValueError) as error:
            raise ParetoscopeError(
                f"target_model.corner_returns: expected {n_obj} rows of {n_obj} numbers ({error})"
            ) from None
        if len(rows) != n_obj or any(len(row) != n_obj for row in rows):
            raise ParetoscopeError(
                f"target_model.corner_returns: expected {n_obj} x {n_obj} numbers for "
                f"{n_obj} objectives, got {len(rows)} rows"
            )
        return cls(corner_returns=rows, source=str(data.get("source", "")))


def fit_linear_target_model(
    preferences: np.ndarray, returns: np.ndarray, source: str = ""
) -> LinearTargetModel:
    """Least-squares fit of each objective's return on the preference, as PEDA does.

    preferences and returns are (N, n_obj), one row per trajectory. Without an intercept the fit
    is the same as LinearRegression's on the simplex (the preference entries sum to 1, so an
    intercept adds nothing), and its coefficients are directly the returns at the corners.
    """
    prefs = np.asarray(preferences, dtype=np.float64)
    rets = np.asarray(returns, dtype=np.float64)
    if prefs.ndim != 2 or rets.shape != prefs.shape:
        raise ParetoscopeError(
            "target model fit: preferences and returns must both be (N, n_obj), "
            f"got {prefs.shape} and {rets.shape}"
        )
    if prefs.shape[0] < 2:
        raise ParetoscopeError(
            f"target model fit: need at least 2 trajectories, got {prefs.shape[0]}"
        )
    if not (np.isfinite(prefs).all() and np.isfinite(rets).all()):
        raise ParetoscopeError("target model fit: preferences and returns must be finite")
    # Solve prefs @ X = rets; X[j, i] is objective i's return at pure preference j.
    solution, *_ = np.linalg.lstsq(prefs, rets, rcond=None)
    corner = tuple(tuple(float(value) for value in row) for row in solution.T)
    return LinearTargetModel(corner_returns=corner, source=source)


# PEDA's published models (docs/reference.md#initial-target-at-evaluation), for the
# expert_uniform D4MORL sets: expected return of objective i (row) at pure preference e_j
# (column); linear in between.
PEDA_PUBLISHED_CORNER_RETURNS: dict[str, tuple[tuple[float, ...], ...]] = {
    "MO-HalfCheetah-v2": ((923.7, -95.5), (259.6, 578.5)),
    "MO-Hopper-v2": ((611.3, 32.9), (74.4, 436.3)),
    "MO-Hopper-v3": ((515.0, 194.4, -113.0), (149.1, 391.8, 81.8), (441.2, 458.9, 523.7)),
    "MO-Walker2d-v2": ((517.1, 12.6), (122.9, 615.2)),
    "MO-Ant-v2": ((513.3, 102.8), (157.5, 493.2)),
    "MO-Swimmer-v2": ((314.5, 198.6), (156.3, 629.4)),
}


def published_target_model(env_id: str) -> LinearTargetModel | None:
    """PEDA's published model for the env's expert_uniform dataset, or None where it has none."""
    corner = PEDA_PUBLISHED_CORNER_RETURNS.get(env_id)
    if corner is None:
        return None
    return LinearTargetModel(
        corner_returns=corner,
        source=f"PEDA published linear model, {env_id} expert_uniform",
    )
