"""Checks that an agent's row i is bit-identical whatever else shares its batch.

`invariance_failures` runs a pool of random-but-valid episodes (observations, preferences,
targets, and the rewards the rollout loop subtracts from the targets) once as one batch, then
again in other batches: each row alone, and random subsets of every size in `sizes`, in random
order, so each row turns up at many positions among other rows. Every action is compared with
the reference bit for bit (`np.array_equal`); a failure names the batch size and the position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec


@dataclass(frozen=True)
class EpisodePool:
    """`rows` episodes of `steps` steps for one env."""

    observations: np.ndarray  # (steps, rows, obs_dim)
    preferences: np.ndarray  # (rows, n_obj)
    targets: np.ndarray  # (rows, n_obj)
    rewards: np.ndarray  # (steps, rows, n_obj)

    @property
    def rows(self) -> int:
        return int(self.preferences.shape[0])


def episode_pool(env_id: str, rows: int, steps: int, seed: int = 0) -> EpisodePool:
    """Random episodes: normal observations, Dirichlet preferences (corners and a tie among
    them, where member choice and masks are decided), positive targets and rewards."""
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    preferences = rng.dirichlet(np.ones(spec.n_obj), size=rows)
    preferences[: spec.n_obj] = np.eye(spec.n_obj)
    if rows > spec.n_obj:
        preferences[spec.n_obj] = 1.0 / spec.n_obj
    return EpisodePool(
        observations=rng.normal(0.0, 1.0, size=(steps, rows, spec.obs_dim)),
        preferences=preferences,
        targets=rng.uniform(50.0, 3000.0, size=(rows, spec.n_obj)),
        rewards=rng.normal(1.0, 0.5, size=(steps, rows, spec.n_obj)),
    )


def run_rows(agent: Agent, pool: EpisodePool, rows: np.ndarray) -> np.ndarray:
    """Actions (len(rows), steps, act_dim) of the pool's `rows` run together, in that order."""
    agent.reset(len(rows))
    preferences = pool.preferences[rows]
    remaining = pool.targets[rows].copy()
    actions = []
    for t in range(pool.observations.shape[0]):
        actions.append(np.asarray(agent.act(pool.observations[t, rows], preferences, remaining)))
        remaining = remaining - pool.rewards[t, rows]
    return np.stack(actions, axis=1)


def invariance_failures(
    agent: Agent,
    pool: EpisodePool,
    sizes: Iterable[int] = range(1, 71),
    seed: int = 0,
    reference: np.ndarray | None = None,
    limit: int = 10,
) -> list[str]:
    """Where a row's actions differ from the one-batch reference (at most `limit` messages).

    Each row is also run alone. `reference` (from `run_rows` over all rows) may be given, e.g.
    one computed on another number of torch threads.
    """
    everything = np.arange(pool.rows)
    if reference is None:
        reference = run_rows(agent, pool, everything)
    rng = np.random.default_rng(seed)
    failures: list[str] = []
    batches = [np.array([row]) for row in everything]
    for size in sizes:
        batches.append(rng.permutation(pool.rows)[: min(size, pool.rows)])
    for rows in batches:
        actions = run_rows(agent, pool, rows)
        for position, row in enumerate(rows):
            if not np.array_equal(actions[position], reference[row]):
                gap = float(np.max(np.abs(actions[position] - reference[row])))
                failures.append(
                    f"row {row} at position {position} of a batch of {len(rows)}: "
                    f"max difference {gap:.3g}"
                )
                if len(failures) >= limit:
                    return failures
    return failures


def initial_target_failures(agent: Agent, pool: EpisodePool) -> list[str]:
    """Rows whose `initial_target` differs when asked alone instead of with the whole pool."""
    together = np.asarray(agent.initial_target(pool.preferences))
    return [
        f"initial_target of row {row} differs alone"
        for row in range(pool.rows)
        if not np.array_equal(
            np.asarray(agent.initial_target(pool.preferences[row : row + 1]))[0], together[row]
        )  # fmt: skip
    ]
