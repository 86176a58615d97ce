"""Batched rollouts: lockstep rows equal single rollouts, bad requests fail clearly."""

from __future__ import annotations

import numpy as np
import pytest

from paretoscope.envs import make_env
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch, stream_rollout
from tests.agents_for_tests import LinearAgent, NaNAgent

ENV_ID = "mo-halfcheetah-v5"


def reference_episode(agent: LinearAgent, preference: np.ndarray, seed: int, horizon: int):
    """One episode through plain env.step, written independently of paretoscope.rollout."""
    env = make_env(ENV_ID)
    observation, _ = env.reset(seed=seed)
    agent.reset(1)
    total = np.zeros(len(preference))
    steps = 0
    for _ in range(horizon):
        action = agent.act(observation[None], preference[None], np.zeros((1, len(preference))))[0]
        observation, reward, terminated, truncated, _ = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            break
    env.close()
    return total, steps


def test_batched_rows_equal_single_rollouts_with_the_same_seeds() -> None:
    agent = LinearAgent(ENV_ID, seed=1)
    preferences = np.array([[1.0, 0.0], [0.5, 0.5], [0.2, 0.8]])
    seeds = [3, 4, 5]
    result = rollout_batch(agent, ENV_ID, preferences, seeds, horizon=40, record=True)
    assert result.returns.shape == (3, 2)
    for row, seed in enumerate(seeds):
        expected_return, expected_length = reference_episode(agent, preferences[row], seed, 40)
        np.testing.assert_allclose(result.returns[row], expected_return, rtol=1e-6)
        assert result.lengths[row] == expected_length
    # The recorded trajectory adds up to the returns.
    assert result.trajectories is not None
    for row, trajectory in enumerate(result.trajectories):
        np.testing.assert_allclose(trajectory["raw_rewards"].sum(axis=0), result.returns[row])
        assert trajectory["terminals"][-1] and not trajectory["terminals"][:-1].any()


def test_agent_is_called_once_per_step_for_the_whole_batch() -> None:
    agent = LinearAgent(ENV_ID)
    rollout_batch(agent, ENV_ID, np.full((5, 2), 0.5), list(range(5)), horizon=7)
    assert agent.calls == 7


def test_nan_actions_end_only_their_rows_as_diverged() -> None:
    agent = NaNAgent(ENV_ID)
    preferences = np.array([[0.9, 0.1], [0.1, 0.9]])
    result = rollout_batch(agent, ENV_ID, preferences, [0, 1], horizon=10)
    assert result.diverged.tolist() == [True, False]
    assert result.lengths.tolist() == [2, 10]


@pytest.mark.parametrize(
    ("preferences", "seeds", "targets", "match"),
    [
        (np.array([[0.5, 0.4]]), [0], None, "sums to"),
        (np.array([[0.3, 0.3, 0.4]]), [0], None, "expected shape"),
        (np.array([[np.nan, 1.0]]), [0], None, "finite"),
        (np.array([[0.5, 0.5]]), [0, 1], None, "seeds"),
        (np.array([[0.5, 0.5]]), [0], np.array([[1.0, 2.0, 3.0]]), "targets"),
        (np.array([[0.5, 0.5]]), [0], np.array([1.0, 2.0, 3.0]), "targets"),
        # The values, not only a shape: "(1, 2)" would not say what was wrong.
        (np.array([[0.5, 0.5]]), [0], np.array([[1e308, np.inf]]), r"\[\[1\.e\+308 +inf\]\]"),
    ],
)
def test_bad_requests_raise_the_project_error(preferences, seeds, targets, match) -> None:
    with pytest.raises(ParetoscopeError, match=match):
        rollout_batch(LinearAgent(ENV_ID), ENV_ID, preferences, seeds, targets=targets, horizon=2)


def test_agent_for_another_env_is_refused_before_any_step() -> None:
    agent = LinearAgent("mo-hopper-v5")
    with pytest.raises(ParetoscopeError, match="n_obj"):
        rollout_batch(agent, ENV_ID, np.array([[0.5, 0.5]]), [0], horizon=2)


D4MORL_IDS = [
    "MO-HalfCheetah-v2",
    "MO-Hopper-v2",
    "MO-Hopper-v3",
    "MO-Walker2d-v2",
    "MO-Ant-v2",
    "MO-Swimmer-v2",
]


@pytest.mark.parametrize("env_id", D4MORL_IDS)
def test_direct_mujoco_stepping_equals_make_env_exactly(env_id: str) -> None:
    """The fast D4MORL path gives make_env's observations, rewards and terminations, bit for bit."""
    agent = LinearAgent(env_id, seed=2, scale=0.5)
    spec_n_obj = agent.spec.n_obj
    preferences = np.tile(np.full(spec_n_obj, 1.0 / spec_n_obj), (3, 1))
    seeds = [10, 11, 12]
    horizon = 120
    result = rollout_batch(agent, env_id, preferences, seeds, horizon=horizon, record=True)
    assert result.trajectories is not None
    for row, seed in enumerate(seeds):
        env = make_env(env_id)
        observation, _ = env.reset(seed=seed)
        trajectory = result.trajectories[row]
        rewards, observations = [], [observation]
        for _ in range(horizon):
            action = agent.act(observation[None], preferences[row][None], np.zeros((1, spec_n_obj)))
            observation, reward, terminated, truncated, _ = env.step(action[0])
            rewards.append(reward)
            observations.append(observation)
            if terminated or truncated:
                break
        env.close()
        assert result.lengths[row] == len(rewards)
        assert result.terminated[row] == bool(terminated)
        np.testing.assert_array_equal(trajectory["raw_rewards"], np.array(rewards, np.float64))
        np.testing.assert_array_equal(trajectory["observations"], np.array(observations[:-1]))
        np.testing.assert_array_equal(trajectory["next_observations"], np.array(observations[1:]))
        np.testing.assert_array_equal(
            result.returns[row], np.sum(rewards, axis=0, dtype=np.float64)
        )


def test_some_d4morl_rows_end_early_while_others_go_on() -> None:
    """Hopper falls under a random linear policy; rows are masked out independently."""
    agent = LinearAgent("MO-Hopper-v3", seed=0, scale=1.0)
    result = rollout_batch(agent, "MO-Hopper-v3", np.full((4, 3), 1 / 3), [0, 1, 2, 3])
    assert result.terminated.any()
    assert (result.lengths[result.terminated] < 500).all()
    assert not result.diverged.any()


def test_horizon_beyond_the_env_horizon_is_refused() -> None:
    with pytest.raises(ParetoscopeError, match="horizon"):
        rollout_batch(LinearAgent(ENV_ID), ENV_ID, np.array([[0.5, 0.5]]), [0], horizon=5000)


@pytest.mark.parametrize("env_id", ["MO-Hopper-v3", ENV_ID])
def test_streamed_episode_equals_the_batched_row(env_id: str) -> None:
    agent = LinearAgent(env_id, seed=3, scale=0.6)
    n_obj = agent.spec.n_obj
    preference = np.full(n_obj, 1.0 / n_obj)
    target = np.arange(1.0, n_obj + 1.0) * 100
    batched = rollout_batch(agent, env_id, preference[None], [7], targets=target, horizon=200)
    records = list(stream_rollout(agent, env_id, preference, seed=7, target=target, horizon=200))
    assert len(records) == batched.lengths[0]
    assert [r.step for r in records] == list(range(1, len(records) + 1))
    assert records[-1].done and not any(r.done for r in records[:-1])
    np.testing.assert_array_equal(records[-1].cumulative_return, batched.returns[0])
    np.testing.assert_allclose(records[-1].remaining_target, target - batched.returns[0])
    np.testing.assert_allclose(
        np.sum([r.reward for r in records], axis=0), records[-1].cumulative_return
    )
    assert records[-1].terminated == batched.terminated[0]


def test_stream_stops_with_a_diverged_record_on_nan_actions() -> None:
    records = list(stream_rollout(NaNAgent(ENV_ID), ENV_ID, np.array([0.9, 0.1]), seed=0))
    assert len(records) == 3
    assert records[-1].diverged and records[-1].done
    assert not any(r.diverged for r in records[:-1])


@pytest.mark.parametrize("env_id", ["MO-HalfCheetah-v2", "MO-Ant-v2"])
def test_physics_threads_do_not_change_any_episode(env_id: str) -> None:
    agent = LinearAgent(env_id, seed=4, scale=0.5)
    preferences = np.tile([0.5, 0.5], (9, 1))
    seeds = list(range(9))
    one = rollout_batch(agent, env_id, preferences, seeds, horizon=80, record=True)
    three = rollout_batch(agent, env_id, preferences, seeds, horizon=80, record=True, threads=3)
    np.testing.assert_array_equal(one.returns, three.returns)
    np.testing.assert_array_equal(one.lengths, three.lengths)
    assert one.trajectories is not None and three.trajectories is not None
    for a, b in zip(one.trajectories, three.trajectories, strict=True):
        np.testing.assert_array_equal(a["observations"], b["observations"])
