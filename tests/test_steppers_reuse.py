"""Envs reused across batches give the episodes new envs give; random draws ahead, same numbers."""

from __future__ import annotations

import numpy as np
import pytest

from paretoscope import steppers
from paretoscope.agents.random_agent import RandomAgent
from paretoscope.envs import get_spec
from paretoscope.rollout import rollout_batch

# Episodes that end early (deep-sea-treasure), draw from np.random (minecart), rebuild a world
# at reset (lunar lander), and a MuJoCo task.
REUSED = ["deep-sea-treasure-v0", "minecart-v0", "mo-lunar-lander-v3", "mo-hopper-v5"]


def trajectories(env_id: str, seeds: list[int]) -> list[dict[str, np.ndarray]]:
    preferences = np.full((len(seeds), get_spec(env_id).n_obj), 1 / get_spec(env_id).n_obj)
    result = rollout_batch(RandomAgent(env_id), env_id, preferences, seeds, horizon=60, record=True)
    assert result.trajectories is not None
    return result.trajectories


@pytest.mark.parametrize("env_id", REUSED)
def test_a_reused_env_gives_the_episode_a_new_env_gives(env_id: str, monkeypatch) -> None:
    monkeypatch.setattr(steppers, "_idle_envs", steppers._IdleEnvs())
    trajectories(env_id, [5, 6, 7])  # leaves its envs mid-episode or ended, for reuse
    reused = trajectories(env_id, [1, 2, 3, 4])
    monkeypatch.setattr(steppers, "_idle_envs", steppers._IdleEnvs())
    fresh = trajectories(env_id, [1, 2, 3, 4])
    for got, expected in zip(reused, fresh, strict=True):
        for key in expected:
            np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def test_image_observations_and_rendering_envs_are_never_reused() -> None:
    assert steppers._IdleEnvs.reusable(get_spec("minecart-v0"))
    assert not steppers._IdleEnvs.reusable(get_spec("minecart-rgb-v0"))
    batch = steppers.GymnasiumBatch(get_spec("deep-sea-treasure-v0"), 1, render=True)
    assert not batch._reusable
    batch.close()


@pytest.mark.parametrize("n_actions", [2, 4, 6, 9])
def test_random_actions_drawn_ahead_equal_one_draw_per_step(n_actions: int) -> None:
    env_id = {2: "fruit-tree-v0", 4: "deep-sea-treasure-v0", 6: "minecart-v0", 9: "mo-reacher-v5"}
    agent = RandomAgent(env_id[n_actions], seed=3)
    seeds = np.array([0, 7, 123456789])
    agent.reset(len(seeds))
    agent.seed_rows(seeds)
    drawn = np.stack([agent.act(np.zeros((3, 1)), None, None) for _ in range(100)], axis=1)
    for row, seed in enumerate(seeds):
        rng = np.random.default_rng([3, int(seed)])
        np.testing.assert_array_equal(drawn[row], [rng.integers(n_actions) for _ in range(100)])
