"""A run's fronts step by step, and the front's metrics at each step.

`step_fronts` averages a run's sweep table (`paretoscope.runs.sweep.sweep_run`, one row per episode
with its ``step``) into one `StepFront` per step: the mean return of each preference over the
seeds. `logged_step_fronts` takes the fronts a trainer logged itself (PEDA's rollout logs),
already means. `front_metrics` measures each front (hypervolume, expected utility,
cardinality, sparsity, IGD where the env's front is known); `step_metrics` does the same for a
sweep table, with the episode count of each step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from paretoscope.discount import table_gamma
from paretoscope.errors import ParetoscopeError
from paretoscope.results_store import STEP_COLUMN, objective_columns

if TYPE_CHECKING:
    from paretoscope.runs.run import LoggedFront


@dataclass(frozen=True, eq=False)
class StepFront:
    """The mean return per preference at one training step (P preferences, n objectives).

    Compared by identity (`eq=False`): its fields are arrays."""

    step: int
    returns: np.ndarray  # (P, n_obj)
    preferences: np.ndarray  # (P, n_obj)


def step_fronts(table: pd.DataFrame, env_id: str) -> list[StepFront]:
    """One front per step of a run's sweep table, ordered by step: the mean return over seeds
    of each preference (and target, as `step_metrics` groups them), in the table's order."""
    from paretoscope.envs import get_spec

    spec = get_spec(env_id)
    preference_columns = objective_columns("preference", spec)
    return_columns = objective_columns("return", spec)
    target_columns = [c for c in objective_columns("target", spec) if c in table.columns]
    if STEP_COLUMN not in table.columns:
        raise ParetoscopeError(f"a run's sweep table has a {STEP_COLUMN!r} column; this has not")
    missing = [c for c in (*preference_columns, *return_columns) if c not in table.columns]
    if missing:
        raise ParetoscopeError(f"sweep table for {env_id}: missing columns {missing}")
    if len(table) == 0:
        raise ParetoscopeError("the run's sweep table is empty: no step to draw")
    fronts = []
    for step, rows in table.groupby(STEP_COLUMN, sort=True):
        grouped = rows.groupby(preference_columns + target_columns, sort=False, as_index=False)
        means = grouped[return_columns].mean()
        fronts.append(
            StepFront(
                step=int(step),
                returns=means[return_columns].to_numpy(dtype=np.float64),
                preferences=means[preference_columns].to_numpy(dtype=np.float64),
            )
        )
    return fronts


def logged_step_fronts(fronts: Sequence[LoggedFront]) -> list[StepFront]:
    """The fronts a trainer logged (`TrainingRun.logged_fronts`), ordered by step."""
    return [
        StepFront(
            step=int(front.step),
            returns=np.asarray(front.returns, dtype=np.float64),
            preferences=np.asarray(front.preferences, dtype=np.float64),
        )
        for front in sorted(fronts, key=lambda front: front.step)
    ]


def unknown_preference_weights(n_obj: int) -> np.ndarray:
    """The weights expected utility averages over when a front's points carry no preference:
    the default sweep plan's grid (as fine as the dashboard's sliders)."""
    from paretoscope.metrics.preferences import preference_grid

    granularity = {1: 1, 2: 20, 3: 10, 4: 6}.get(n_obj, 4)
    return np.asarray(preference_grid(n_obj, granularity), dtype=np.float64)


def step_metrics(
    table: pd.DataFrame,
    env_id: str,
    reference_point: Sequence[float] | None = None,
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per step of a run's sweep table: `front_metrics` of its `step_fronts` (against
    the env's known front at the table's discount), with the episodes each step holds."""
    gamma = table_gamma(table, f"sweep table for {env_id}", "measure")
    metrics = front_metrics(step_fronts(table, env_id), env_id, reference_point, weights, gamma)
    episodes = table.groupby(STEP_COLUMN, sort=True).size()
    metrics.insert(5, "episodes", episodes.to_numpy())
    return metrics


def front_metrics(
    fronts: Sequence[StepFront],
    env_id: str,
    reference_point: Sequence[float] | None = None,
    weights: np.ndarray | None = None,
    gamma: float = 1.0,
) -> pd.DataFrame:
    """One row per front, by step: the columns of `step_metrics` but episodes (a logged front
    holds means only), from the front's points as they are. Expected utility uses `weights`
    (default: each front's own preferences, or `unknown_preference_weights` for points logged
    without them); IGD and utility loss are against the env's known
    front at `gamma` (the discount the returns were measured at), where it has one."""
    from paretoscope.envs import get_spec
    from paretoscope.envs.known_fronts import against_known, known_front
    from paretoscope.metrics import front_summary, igd, maximum_utility_loss

    spec = get_spec(env_id)
    reference = spec.reference_point if reference_point is None else tuple(reference_point)
    rows: list[dict[str, Any]] = []
    for front in sorted(fronts, key=lambda front: front.step):
        returns = np.asarray(front.returns, dtype=np.float64)
        preferences = np.asarray(front.preferences, dtype=np.float64)
        if weights is not None:
            utility_weights = weights
        elif np.isnan(preferences).any():  # points logged without their preferences (W&B)
            utility_weights = unknown_preference_weights(spec.n_obj)
        else:
            utility_weights = preferences
        summary = front_summary(returns, reference, utility_weights)
        row: dict[str, Any] = {
            STEP_COLUMN: int(front.step),
            "hypervolume": summary.hypervolume,
            "expected_utility": summary.expected_utility,
            "cardinality": summary.cardinality,
            "sparsity": summary.sparsity,
            "preferences": len(returns),
        }
        if np.isnan(preferences).any():  # no per-preference regret: IGD and loss over the grid
            known = known_front(env_id, gamma)
            if known is not None and len(returns):
                row["igd"] = igd(returns, known.points)
                row["maximum_utility_loss"] = maximum_utility_loss(
                    returns, known.points, utility_weights
                )
            rows.append(row)
            continue
        against = against_known(env_id, gamma, returns, preferences)
        if against is not None and against.comparison is not None:
            row["igd"] = against.comparison.igd
            row["maximum_utility_loss"] = against.comparison.maximum_utility_loss
        rows.append(row)
    return pd.DataFrame(rows)
