"""One algorithm's training runs (its seeds) taken together: the spread of their curves and the
runs' final fronts, for their attainment surfaces (`paretoscope.metrics.attainment_surfaces`).

Runs are grouped by algorithm: the name the trainer gives its method (a W&B run's config
``algo``, MORL-Baselines' class name such as ``Envelope``) or, for paretoscope's own runs, the
model kind. A run whose algorithm is unknown stands alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.runs.fronts import StepFront


def seed_groups(algorithms: Mapping[str, str | None]) -> dict[str, list[str]]:
    """The runs (by label) of each algorithm, in the order first met; a run of unknown
    algorithm (None) is a group of its own, under its label."""
    groups: dict[str, list[str]] = {}
    for label, algorithm in algorithms.items():
        groups.setdefault(label if algorithm is None else algorithm, []).append(label)
    return groups


@dataclass(frozen=True)
class CurveSpread:
    """One metric of several runs over every step at which one of them evaluated: at each
    step, the median, lowest and highest of the runs' latest finite values at or before it,
    and how many runs had one (a run that had not evaluated yet is left out there)."""

    steps: np.ndarray  # (S,) increasing
    median: np.ndarray  # (S,)
    low: np.ndarray  # (S,)
    high: np.ndarray  # (S,)
    runs: np.ndarray  # (S,) runs counted at each step


def curve_spread(curves: Sequence[tuple[Sequence[int], Sequence[float]]]) -> CurveSpread:
    """The spread of `curves`, each a run's (steps, values); NaN values are not evaluations."""
    latest: list[tuple[np.ndarray, np.ndarray]] = []
    for index, (steps, values) in enumerate(curves):
        step_array = np.asarray(steps, dtype=np.int64).reshape(-1)
        value_array = np.asarray(values, dtype=np.float64).reshape(-1)
        if step_array.shape != value_array.shape:
            raise ParetoscopeError(
                f"curve {index}: {len(step_array)} steps but {len(value_array)} values"
            )
        kept = np.isfinite(value_array)
        order = np.argsort(step_array[kept], kind="stable")
        latest.append((step_array[kept][order], value_array[kept][order]))
    known = [evaluated for evaluated, _ in latest if len(evaluated)]
    if not known:
        raise ParetoscopeError("no run has a finite value to spread")
    grid = np.unique(np.concatenate(known))
    table = np.full((len(latest), len(grid)), np.nan)
    for row, (evaluated, found) in enumerate(latest):
        if not len(evaluated):
            continue
        # The last evaluation at or before each step (side="right": a step's own counts).
        position = np.searchsorted(evaluated, grid, side="right") - 1
        started = position >= 0
        table[row, started] = found[position[started]]
    counted = np.isfinite(table)
    return CurveSpread(
        steps=grid,
        median=np.nanmedian(table, axis=0),
        low=np.nanmin(table, axis=0),
        high=np.nanmax(table, axis=0),
        runs=counted.sum(axis=0),
    )


def final_fronts(fronts_by_run: Sequence[Sequence[StepFront]]) -> tuple[np.ndarray, np.ndarray]:
    """Each run's front at its last step (its finite points) stacked, with the run's index
    for each point: the input of `attainment_surfaces`. Runs with no front are left out."""
    blocks, owners = [], []
    for index, fronts in enumerate(fronts_by_run):
        if not fronts:
            continue
        last = max(fronts, key=lambda front: front.step)
        returns = np.asarray(last.returns, dtype=np.float64)
        returns = returns[np.isfinite(returns).all(axis=1)]
        if len(returns):
            blocks.append(returns)
            owners.append(np.full(len(returns), index))
    if not blocks:
        raise ParetoscopeError("no run has a front with finite points")
    return np.vstack(blocks), np.concatenate(owners)
