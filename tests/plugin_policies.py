"""A tiny plug-in policy for the dashboard's tests (``py:tests.plugin_policies:make``).

On deep-sea-treasure-v0 (observation: row, column) it sails right along the surface to the last
column, then dives: the deepest treasure, 19 steps. On any other discrete env it always takes
action 0; on a continuous one, the middle of the action box.
"""

from __future__ import annotations

import numpy as np

from core.envs import get_spec

RIGHT, DOWN = 3, 1
LAST_COLUMN = 9


class SurfaceThenDive:
    """Deterministic, preference-blind."""

    preference_blind = True

    def __init__(self, env_id: str) -> None:
        self.env = get_spec(env_id)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        del preferences, targets
        rows = len(observations)
        if self.env.id == "deep-sea-treasure-v0":
            columns = np.asarray(observations)[:, 1]
            return np.where(columns < LAST_COLUMN, RIGHT, DOWN).astype(np.int64)
        if self.env.discrete:
            return np.zeros(rows, dtype=np.int64)
        low = np.asarray(self.env.action_low, dtype=np.float64)
        high = np.asarray(self.env.action_high, dtype=np.float64)
        return np.tile((low + high) / 2, (rows, 1))


def make(env_id: str) -> SurfaceThenDive:
    return SurfaceThenDive(env_id)
