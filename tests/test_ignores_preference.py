"""`paretoscope.sweeps.ignores_preference`: returns that do not depend on the preference."""

from __future__ import annotations

import numpy as np

from paretoscope.agents.random_agent import RandomAgent
from paretoscope.rollout import rollout_batch
from paretoscope.sweeps import ignores_preference


def test_same_returns_at_every_preference_within_rounding() -> None:
    assert ignores_preference(np.array([[4.41602, -3.0], [4.41602 + 1e-9, -3.0]]))
    # 1e-4 apart: a real, if small, difference.
    assert not ignores_preference(np.array([[4.41602, -3.0], [4.41612, -3.0]]))
    # One preference, or none, tells nothing.
    assert not ignores_preference(np.array([[1.0, 2.0]]))
    assert not ignores_preference(np.zeros((0, 2)))


def test_random_on_fruit_tree_ignores_the_preference() -> None:
    env = "fruit-tree-v0"
    preferences = np.array([[1.0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1.0], [1 / 6] * 6])
    episodes = rollout_batch(RandomAgent(env), env, preferences, [0, 0, 0])
    assert ignores_preference(episodes.returns)
