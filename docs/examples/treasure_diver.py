"""A hand-written deep-sea-treasure policy, to use as a ``py:`` plug-in agent.

``paretoscope.load_agent("py:treasure_diver:make_agent", env="deep-sea-treasure-v0")`` imports
this module (run Python from this folder, or put it on ``sys.path``) and calls ``make_agent``.
The diver swims right along the surface for as many columns as the preference's weight on
treasure asks (0 to 9), then dives: more treasure weight, a farther and richer treasure, more
time spent.
"""

from __future__ import annotations

import numpy as np

DOWN, RIGHT = 1, 3  # deep-sea-treasure's actions: 0 up, 1 down, 2 left, 3 right
WIDEST = 9  # the map's last column


class TreasureDiver:
    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        columns = np.asarray(observations)[:, 1]
        dive_at = np.rint(np.asarray(preferences)[:, 0] * WIDEST)
        return np.where(columns < dive_at, RIGHT, DOWN).astype(np.int64)


def make_agent(env_id: str) -> TreasureDiver:
    if not env_id.startswith("deep-sea-treasure"):
        raise ValueError(f"the treasure diver only knows deep-sea-treasure, not {env_id}")
    return TreasureDiver()
