"""How a collection plans its episodes: per episode a preference, an env seed and a noise
seed, each drawn from (seed, episode index) alone, so the plan does not depend on the batch size
and a dataset's episode can be replayed from its reset (`collected_env_seed`).
"""

from __future__ import annotations

import numpy as np

from paretoscope.data.preferences import sample_preferences
from paretoscope.data.trajectories import DatasetInfo
from paretoscope.errors import ParetoscopeError


def episode_plan(
    seed: int, count: int, n_obj: int, distribution: str, bounds: object = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per episode: preference (count, n_obj), env seed (count,) and noise seed (count,)."""
    preferences = sample_preferences(
        distribution, count, n_obj, np.random.default_rng([seed, 0]), bounds
    )
    env_seeds = np.random.default_rng([seed, 1]).integers(0, 2**31 - 1, size=count)
    noise_seeds = np.random.default_rng([seed, 2]).integers(0, 2**63 - 1, size=count)
    return preferences, env_seeds, noise_seeds


def collected_env_seed(info: DatasetInfo, preference: np.ndarray) -> int | None:
    """The env seed a paretoscope collection used for its episode with `preference`, or None
    (D4MORL files and other sources do not record their reset states)."""
    extra = info.extra or {}
    if "seed" not in extra or "episodes_requested" not in extra:
        return None
    try:
        preferences, env_seeds, _ = episode_plan(
            int(extra["seed"]),
            int(extra["episodes_requested"]),
            info.n_obj,
            info.preference_distribution or "uniform",
            extra.get("preference_bounds"),
        )
    except (ParetoscopeError, ValueError, TypeError, KeyError):
        return None
    wanted = np.asarray(preference, dtype=np.float64).reshape(1, -1)
    matches = np.flatnonzero((np.abs(preferences - wanted) < 1e-12).all(axis=1))
    return int(env_seeds[matches[0]]) if len(matches) else None
