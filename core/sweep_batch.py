"""A sweep's unit of work: `SweepEpisode` (a preference, an optional target, a seed) and
`evaluate_batch`, which rolls a batch of them out in lockstep into table rows.

Both backends of `paretoscope.evaluate.sweep` run this same function on the same batches (the
local worker processes, and Ray tasks in `paretoscope.ray_backend`), so the same seeds give the
same table on either.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.results_store import objective_columns
from paretoscope.rollout import rollout_batch


@dataclass(frozen=True)
class SweepEpisode:
    """One episode of a sweep: a preference, an optional explicit target, a seed."""

    preference: tuple[float, ...]
    target: tuple[float, ...] | None
    seed: int


def evaluate_batch(
    agent: Agent,
    env_id: str,
    requests: Sequence[SweepEpisode],
    horizon: int,
    gamma: float = 1.0,
) -> pd.DataFrame:
    """Roll out `requests` in lockstep and return their rows (without agent columns)."""
    spec = get_spec(env_id)
    preferences = np.array([request.preference for request in requests])
    explicit = np.array([request.target is not None for request in requests])
    targets = np.asarray(agent.initial_target(preferences), dtype=np.float64).reshape(
        len(requests), spec.n_obj
    )
    for row, request in enumerate(requests):
        if request.target is not None:
            targets[row] = request.target
    started = time.perf_counter()
    result = rollout_batch(
        agent,
        env_id,
        preferences,
        [request.seed for request in requests],
        targets,
        horizon,
        gamma=gamma,
    )
    wall_time = (time.perf_counter() - started) / len(requests)
    table = pd.DataFrame({"seed": result.seeds, "horizon": horizon, "gamma": result.gamma})
    for prefix, block in (
        ("preference", result.preferences),
        ("target", result.targets),
        ("return", result.returns),
    ):
        for column, values in zip(objective_columns(prefix, spec), block.T, strict=True):
            table[column] = values
    table["explicit_target"] = explicit
    table["length"] = result.lengths
    table["terminated"] = result.terminated
    table["diverged"] = result.diverged
    table["wall_time"] = wall_time
    return table
