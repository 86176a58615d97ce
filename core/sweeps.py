"""The sweep that represents an agent on a front: its plan's preference grid (or chosen
preferences and targets) at a discount gamma, evaluated once and stored, then averaged per
preference.

`SweepRequest` names one such sweep by plain values (its key identifies it for whoever runs
it, e.g. the dashboard's worker pool); `run_sweep` evaluates what the store lacks;
`mean_per_preference` gives the points a front shows; `ignores_preference` tells a sweep whose
returns do not depend on the preference.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from paretoscope.agents.base import Agent
from paretoscope.catalog import SweepPlan
from paretoscope.envs import get_spec
from paretoscope.results_store import ResultsStore, objective_columns
from paretoscope.settings import SweepSettings

# Rows of one agent call in a sweep. Every agent is batch-invariant (row i's action does not
# depend on the other rows, bit for bit: paretoscope.agents.invariant), so a stored row is exactly
# the
# episode a single-episode recording (a clicked point) replays.
SWEEP_BATCH_SIZE = 64


def sweep_horizon(plan: SweepPlan, env_id: str) -> int:
    """The episode length of `plan` on `env_id` (the env's own unless the plan is shorter)."""
    spec = get_spec(env_id)
    return min(spec.horizon, plan.horizon) if plan.horizon else spec.horizon


@dataclass(frozen=True)
class SweepRequest:
    """One agent's sweep: its plan's grid, or `preferences` (with `targets`) when given."""

    fingerprint: str
    name: str  # the agent id stored with each row
    env_id: str
    plan: SweepPlan
    preferences: tuple[tuple[float, ...], ...] | None = None
    targets: tuple[tuple[float, ...], ...] | None = None
    gamma: float = 1.0  # the discount of the returns (a column of the table, part of the key)

    def key(self) -> str:
        canonical = json.dumps(
            [
                "sweep",
                self.fingerprint,
                self.name,
                self.env_id,
                self.plan.to_dict(),
                self.preferences,
                self.targets,
                float(self.gamma),
            ],
            separators=(",", ":"),
        )
        return "sweep-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]

    def settings(self) -> SweepSettings:
        """The sweep's settings: the grid or preferences, seeds, horizon and discount, one
        process and batches of `SWEEP_BATCH_SIZE` (as every stored row replays)."""
        return SweepSettings(
            granularity=self.plan.granularity if self.preferences is None else None,
            preferences=self.preferences,
            targets=self.targets,
            seeds=self.plan.seeds,
            horizon=sweep_horizon(self.plan, self.env_id),
            gamma=float(self.gamma),
            workers=1,
            batch_size=SWEEP_BATCH_SIZE,
        )

    def missing(self, agent: Agent, store: ResultsStore | None) -> int:
        """Episodes of the sweep that `store` lacks (0: `run` only reads)."""
        from paretoscope.evaluate import count_missing

        return count_missing(agent, self.env_id, self.settings(), store)

    def run(
        self,
        agent: Agent,
        store: ResultsStore | None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> pd.DataFrame:
        """The sweep's table: stored episodes reused, the missing ones evaluated (and stored);
        `on_progress(done, total)` follows the episodes (`paretoscope.evaluate.sweep`)."""
        from paretoscope.evaluate import sweep

        return sweep(
            agent,
            self.env_id,
            self.settings(),
            store=store,
            agent_id=self.name,
            progress=False,
            on_progress=on_progress,
        )


def objective_arrays(table: pd.DataFrame, env_id: str) -> dict[str, np.ndarray]:
    """preferences, targets, returns (N, n_obj), seeds (N,) and explicit-target flags (N,)
    from a sweep table."""
    spec = get_spec(env_id)
    if len(table) == 0:
        empty = np.zeros((0, spec.n_obj))
        return {
            "preferences": empty,
            "targets": empty,
            "returns": empty,
            "seeds": np.zeros(0, dtype=int),
            "explicit": np.zeros(0, dtype=bool),
        }
    explicit = (
        table["explicit_target"].to_numpy(dtype=bool)
        if "explicit_target" in table
        else np.zeros(len(table), dtype=bool)
    )
    return {
        "preferences": table[objective_columns("preference", spec)].to_numpy(dtype=np.float64),
        "targets": table[objective_columns("target", spec)].to_numpy(dtype=np.float64),
        "returns": table[objective_columns("return", spec)].to_numpy(dtype=np.float64),
        "seeds": table["seed"].to_numpy(dtype=np.int64),
        "explicit": explicit,
    }


def mean_per_preference(table: pd.DataFrame, env_id: str) -> dict[str, np.ndarray]:
    """Episodes averaged per (preference, target): what a front shows, one point each (its
    seed: the smallest of the episodes averaged)."""
    spec = get_spec(env_id)
    if len(table) == 0:
        return objective_arrays(table, env_id)
    keys = objective_columns("preference", spec) + objective_columns("target", spec)
    returns = objective_columns("return", spec)
    grouped = table.groupby(keys, sort=False, as_index=False)
    means = grouped[returns].mean()
    means["seed"] = grouped["seed"].min()["seed"].to_numpy()
    if "explicit_target" in table:
        means["explicit_target"] = grouped["explicit_target"].max()["explicit_target"].to_numpy()
    return objective_arrays(means, env_id)


# Returns this close (relative to their size, at least 1) count as the same.
SAME_RETURNS = 1e-6


def ignores_preference(returns: np.ndarray) -> bool:
    """Whether a sweep's per-preference returns (N, n_obj) are all the same (within
    SAME_RETURNS): the agent behaves alike whatever the preference, as a baseline such as
    random does. False for fewer than two preferences (nothing to tell)."""
    values = np.asarray(returns, dtype=np.float64)
    if values.ndim != 2 or len(values) < 2:
        return False
    spread = values.max(axis=0) - values.min(axis=0)
    scale = np.maximum(1.0, np.abs(values).max(axis=0))
    return bool((spread <= SAME_RETURNS * scale).all())
