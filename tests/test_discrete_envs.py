"""MO-Gymnasium's classic tasks through rollouts and sweeps: discrete actions, images, Dict
observations, the env's own truncation, discounting, the random agent and clear refusals.

Truth comes from the envs themselves: a plain `mo_gymnasium.make` loop stepping the same
actions, hand-computed discounted sums, and MO-Gymnasium's own spaces.
"""

from __future__ import annotations

from dataclasses import replace

import mo_gymnasium
import numpy as np
import pandas as pd
import pytest
from gymnasium.error import DependencyNotInstalled

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.agents.builtin import is_builtin, load_agent
from paretoscope.agents.random_agent import RandomAgent
from paretoscope.envs import get_spec
from paretoscope.envs.dependencies import MissingDependency, mo_gymnasium_make
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import summarize, sweep
from paretoscope.results_store import episode_key
from paretoscope.rollout import rollout_batch, stream_rollout
from paretoscope.settings import SweepSettings


class ScriptedAgent:
    """Plays a fixed list of discrete actions (the same for every row), then repeats the last."""

    def __init__(self, env_id: str, actions: list[int]) -> None:
        env = get_spec(env_id)
        self.actions = actions
        self.step = 0
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=env.n_obj,
            obs_dim=env.obs_dim,
            act_dim=1,
            kind="policy_set",
            conditioning=Conditioning(return_conditioned=False),
            n_actions=env.n_actions,
            obs_shape=env.obs_shape,
        )
        self.seen_shapes: list[tuple[int, ...]] = []
        self.seen_dtypes: list[np.dtype] = []

    def reset(self, batch_size: int) -> None:
        self.step = 0

    def act(self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray):
        self.seen_shapes.append(observations.shape)
        self.seen_dtypes.append(observations.dtype)
        action = self.actions[min(self.step, len(self.actions) - 1)]
        self.step += 1
        return np.full(len(observations), action, dtype=np.int64)

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros((len(np.atleast_2d(preferences)), self.spec.n_obj))


def plain_loop(env_id: str, actions: list[int], seed: int, gamma: float) -> tuple[np.ndarray, int]:
    """The discounted return of `actions` stepped in a bare `mo_gymnasium.make` env."""
    env = mo_gymnasium.make(env_id)
    env.reset(seed=seed)
    total = np.zeros(get_spec(env_id).n_obj)
    steps = 0
    try:
        for t in range(get_spec(env_id).horizon):
            action = actions[min(t, len(actions) - 1)]
            _, reward, terminated, truncated, _ = env.step(action)
            total += gamma**t * np.asarray(reward, dtype=np.float64)
            steps += 1
            if terminated or truncated:
                break
    finally:
        env.close()
    return total, steps


def test_discounted_returns_of_a_hand_made_trajectory() -> None:
    # Mountain car with "no push" (action 1) never reaches the flag: 200 steps of (-1, 0, 0).
    gamma = 0.9
    agent = ScriptedAgent("mo-mountaincar-v0", [1])
    result = rollout_batch(agent, "mo-mountaincar-v0", [[1 / 3, 1 / 3, 1 / 3]], [0], gamma=gamma)
    expected_time = -(1 - gamma**200) / (1 - gamma)  # the geometric sum, by hand
    assert result.lengths[0] == 200 and result.gamma == gamma
    np.testing.assert_allclose(result.returns[0], [expected_time, 0.0, 0.0], rtol=1e-12)
    undiscounted = rollout_batch(agent, "mo-mountaincar-v0", [[1 / 3, 1 / 3, 1 / 3]], [0])
    np.testing.assert_array_equal(undiscounted.returns[0], [-200.0, 0.0, 0.0])


def test_discounted_returns_equal_a_plain_env_loop_on_deep_sea_treasure() -> None:
    # Right, then down 3 times: the submarine passes treasures or hits one; truth = bare env.
    actions = [3, 1, 1, 1, 1, 1, 1, 1]
    for gamma in (1.0, 0.99, 0.5):
        agent = ScriptedAgent("deep-sea-treasure-v0", actions)
        result = rollout_batch(agent, "deep-sea-treasure-v0", [[0.5, 0.5]], [3], gamma=gamma)
        expected, steps = plain_loop("deep-sea-treasure-v0", actions, 3, gamma)
        assert result.lengths[0] == steps and result.terminated[0]
        np.testing.assert_allclose(result.returns[0], expected, rtol=1e-6)


def test_gamma_is_checked() -> None:
    agent = RandomAgent("deep-sea-treasure-v0")
    for bad in (0.0, 1.5, float("nan"), "x"):
        with pytest.raises(ParetoscopeError, match="gamma"):
            rollout_batch(agent, "deep-sea-treasure-v0", [[0.5, 0.5]], [0], gamma=bad)


@pytest.mark.parametrize(
    "env_id", ["deep-sea-treasure-v0", "minecart-v0", "mo-lunar-lander-continuous-v3"]
)
def test_random_agent_rows_depend_on_their_seed_alone(env_id: str) -> None:
    spec = get_spec(env_id)
    agent = RandomAgent(env_id)
    weights = np.full((4, spec.n_obj), 1.0 / spec.n_obj)
    together = rollout_batch(agent, env_id, weights, [5, 6, 7, 8], horizon=60, record=True)
    alone = rollout_batch(agent, env_id, weights[:1], [7], horizon=60, record=True)
    again = rollout_batch(agent, env_id, weights[:1], [7], horizon=60, record=True)
    assert together.trajectories is not None and alone.trajectories is not None
    np.testing.assert_array_equal(together.returns[2], alone.returns[0])
    np.testing.assert_array_equal(alone.returns, again.returns)
    actions = together.trajectories[2]["actions"]
    np.testing.assert_array_equal(actions, alone.trajectories[0]["actions"])
    if spec.discrete:
        assert actions.dtype == np.int64 and actions.ndim == 1
        assert actions.min() >= 0 and actions.max() < spec.n_actions
        assert len(set(actions.tolist())) > 1  # it does explore
    else:
        assert actions.shape[1:] == (spec.act_dim,)
        assert (actions >= np.asarray(spec.action_low)).all()
        assert (actions <= np.asarray(spec.action_high)).all()
    other = rollout_batch(agent, env_id, weights[:1], [9], horizon=60, record=True)
    assert other.trajectories is not None
    assert not np.array_equal(other.trajectories[0]["actions"][:10], actions[:10])


def test_random_agent_covers_the_action_space_uniformly() -> None:
    agent = RandomAgent("minecart-v0")
    agent.seed_rows(np.arange(2000))
    actions = agent.act(np.zeros((2000, 7)), np.full((2000, 3), 1 / 3), np.zeros((2000, 3)))
    counts = np.bincount(actions, minlength=6)
    assert counts.sum() == 2000 and counts.min() > 2000 / 6 * 0.8  # about 333 each


def test_random_agent_half_bounded_box_follows_gymnasium() -> None:
    # water-reservoir's action is Box(0, inf): low + Exp(1), as gymnasium's Box.sample draws.
    agent = RandomAgent("water-reservoir-v0")
    agent.seed_rows(np.arange(4000))
    actions = agent.act(np.zeros((4000, 1)), np.full((4000, 2), 0.5), np.zeros((4000, 2)))
    assert actions.shape == (4000, 1) and (actions >= 0).all()
    assert abs(actions.mean() - 1.0) < 0.08  # the mean of Exp(1)


def test_random_is_an_agent_by_name_unless_a_file_has_that_name(tmp_path, monkeypatch) -> None:
    assert is_builtin("random")
    agent = load_agent("random", "fruit-tree-v0")
    assert isinstance(agent, RandomAgent) and agent.spec.env_id == "fruit-tree-v0"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "random").mkdir()
    assert not is_builtin("random")
    with pytest.raises(ParetoscopeError):  # an empty folder is not a checkpoint
        load_agent("random", "fruit-tree-v0")


def test_image_observations_pass_through_and_dict_observations_are_flattened() -> None:
    images = ScriptedAgent("minecart-rgb-v0", [0])
    rollout_batch(images, "minecart-rgb-v0", [[1 / 3, 1 / 3, 1 / 3]] * 2, [0, 1], horizon=3)
    assert images.seen_shapes[0] == (2, 480, 480, 3) and images.seen_dtypes[0] == np.uint8
    bottles = ScriptedAgent("breakable-bottles-v0", [0])
    rollout_batch(bottles, "breakable-bottles-v0", [[1 / 3, 1 / 3, 1 / 3]], [0], horizon=3)
    assert bottles.seen_shapes[0] == (1, 14)  # gymnasium.spaces.flatten of its Dict


def test_the_envs_own_truncation_ends_an_episode_without_calling_it_a_fall() -> None:
    # water-reservoir cuts its episodes at 100 steps itself; the registry has no time limit.
    spec = get_spec("water-reservoir-v0")
    assert spec.horizon_source == "default" and spec.horizon == 1000
    result = rollout_batch(RandomAgent("water-reservoir-v0"), spec.id, [[0.5, 0.5]], [0])
    assert result.lengths[0] == 100 and not result.terminated[0]
    records = list(stream_rollout(RandomAgent(spec.id), spec.id, np.array([0.5, 0.5]), seed=0))
    assert len(records) == 100 and records[-1].done and not records[-1].terminated


def test_minecart_episodes_are_fixed_by_their_seed_and_leave_numpy_global_state_alone() -> None:
    # Minecart mines ore with numpy's global generator; paretoscope seeds one per episode.
    agent = RandomAgent("minecart-v0")
    np.random.seed(123)
    outside = np.random.get_state()[1].copy()
    first = rollout_batch(agent, "minecart-v0", [[0.4, 0.4, 0.2]], [11])
    np.random.seed(999)  # whatever the caller did before
    second = rollout_batch(agent, "minecart-v0", [[0.4, 0.4, 0.2]], [11])
    np.testing.assert_array_equal(first.returns, second.returns)
    np.random.seed(123)
    rollout_batch(agent, "minecart-v0", [[0.4, 0.4, 0.2]], [11])
    np.testing.assert_array_equal(np.random.get_state()[1], outside)


def test_an_agent_whose_spaces_do_not_fit_is_refused_naming_both() -> None:
    four_actions = ScriptedAgent("deep-sea-treasure-v0", [0])
    four_actions.spec = replace(four_actions.spec, env_id="deep-sea-treasure-v0", n_obj=3)
    with pytest.raises(ParetoscopeError, match="n_obj=3.*n_obj=2"):
        rollout_batch(four_actions, "deep-sea-treasure-v0", [[0.5, 0.5]], [0])
    dst_agent = ScriptedAgent("deep-sea-treasure-v0", [0])
    dst_agent.spec = replace(dst_agent.spec, n_obj=3)  # now fits minecart's count, not its spaces
    with pytest.raises(ParetoscopeError, match=r"Discrete\(4\).*Discrete\(6\)"):
        rollout_batch(dst_agent, "minecart-v0", [[1 / 3, 1 / 3, 1 / 3]], [0])
    box_agent = RandomAgent("mo-lunar-lander-continuous-v3")
    with pytest.raises(ParetoscopeError, match=r"Box\(2,\).*Discrete\(4\)"):
        rollout_batch(box_agent, "mo-lunar-lander-v3", [[0.25] * 4], [0])
    rgb_agent = RandomAgent("minecart-rgb-v0")
    with pytest.raises(ParetoscopeError, match=r"\(480, 480, 3\).*\(7,\)"):
        rollout_batch(rgb_agent, "minecart-v0", [[1 / 3, 1 / 3, 1 / 3]], [0])


def test_bad_discrete_actions_are_the_agents_bug_and_say_so() -> None:
    out_of_range = ScriptedAgent("deep-sea-treasure-v0", [7])
    with pytest.raises(ParetoscopeError, match="action 7.*0 to 3"):
        rollout_batch(out_of_range, "deep-sea-treasure-v0", [[0.5, 0.5]], [0])

    class Fractional(ScriptedAgent):
        def act(self, observations, preferences, targets):
            return np.full(len(observations), 1.5)

    with pytest.raises(ParetoscopeError, match="non-integer"):
        rollout_batch(
            Fractional("deep-sea-treasure-v0", [0]), "deep-sea-treasure-v0", [[1, 0]], [0]
        )


def test_a_missing_package_is_named(monkeypatch) -> None:
    def no_box2d(*args, **kwargs):
        raise DependencyNotInstalled('Box2D is not installed, run `pip install "gymnasium[box2d]"`')

    monkeypatch.setattr(mo_gymnasium, "make", no_box2d)
    with pytest.raises(
        MissingDependency, match="mo-lunar-lander-v3 needs the Python package 'box2d'"
    ):
        mo_gymnasium_make("mo-lunar-lander-v3")

    def no_highway(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'highway_env'", name="highway_env")

    monkeypatch.setattr(mo_gymnasium, "make", no_highway)
    with pytest.raises(MissingDependency, match="'highway-env'.*pip install highway-env"):
        mo_gymnasium_make("mo-highway-v0")


def test_a_sweep_at_a_discount_is_keyed_apart_and_measured_against_the_known_front() -> None:
    agent = RandomAgent("deep-sea-treasure-v0")
    settings = SweepSettings(granularity=4, seeds=[0, 1], workers=1)
    plain = sweep(agent, "deep-sea-treasure-v0", settings, progress=False)
    discounted = sweep(agent, "deep-sea-treasure-v0", replace(settings, gamma=0.9), progress=False)
    assert set(plain["gamma"]) == {1.0} and set(discounted["gamma"]) == {0.9}
    assert not set(plain["episode_key"]) & set(discounted["episode_key"])
    # Keys of undiscounted episodes are those stored before discounting existed.
    assert episode_key("f", "e", [1.0], None, 0, 5) == episode_key("f", "e", [1.0], None, 0, 5, 1.0)
    # Discounting shrinks every return of these negative-time, positive-treasure episodes.
    assert (discounted["return_time"] >= plain["return_time"]).all()
    summary = summarize(discounted, "deep-sea-treasure-v0")
    assert summary.gamma == 0.9 and summary.known_front is not None
    assert summary.known_front.exact and summary.known_front.gamma == 0.9
    against = summary.against_known
    assert against is not None and against.igd > 0 and (against.regret >= -1e-9).all()
    with pytest.raises(ParetoscopeError, match="mixes discounts"):
        summarize(pd.concat([plain, discounted]), "deep-sea-treasure-v0")


def test_continuous_agents_keep_the_spec_dict_their_fingerprints_were_made_from() -> None:
    # The bundled demo's stored episodes are keyed by fingerprints that hash this dict.
    spec = AgentSpec("MO-HalfCheetah-v2", 2, 17, 6, "morvs", Conditioning())
    assert set(spec.to_dict()) == {"env_id", "n_obj", "obs_dim", "act_dim", "kind", "conditioning"}
    assert RandomAgent("minecart-rgb-v0").spec.to_dict()["obs_shape"] == (480, 480, 3)
    assert RandomAgent("minecart-v0").spec.to_dict()["n_actions"] == 6


def test_a_preference_blind_agent_plays_one_episode_per_seed_with_the_same_table() -> None:
    blind = RandomAgent("minecart-v0")
    # The same draws, but declaring that it reads the preference: every episode is simulated.
    sighted = RandomAgent("minecart-v0")
    sighted.preference_blind = False  # type: ignore[misc]
    targets = np.tile([[1.0, 2.0, -3.0]], (10, 1))
    settings = SweepSettings(granularity=3, seeds=[0, 1], horizon=80, workers=1, targets=targets)
    shared = sweep(blind, "minecart-v0", settings, progress=False)
    every = sweep(sighted, "minecart-v0", settings, progress=False)
    columns = [c for c in shared.columns if c not in ("wall_time", "agent", "agent_fingerprint")]
    assert len(shared) == 20 and shared["return_ore_1"].nunique() <= 2
    pd.testing.assert_frame_equal(
        shared[columns], every[columns].assign(episode_key=shared["episode_key"])
    )
    assert shared["explicit_target"].all() and (shared["target_fuel"] == -3.0).all()
    assert len(set(shared["episode_key"])) == 20  # one stored row per (preference, seed)
