"""Collection: D4MORL preference distributions, amateur noise, seeded rollouts into datasets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.base import Agent
from paretoscope.agents.behaviour import AmateurAgent, GaussianNoiseAgent, behaviour_agent
from paretoscope.collect import collect
from paretoscope.data import episode_plan, open_native, read_d4morl, sample_preferences
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch
from tests.test_data_support import CHEETAH, LinearTestAgent

# --- preference distributions -------------------------------------------------------------------


def test_uniform_is_flat_on_the_simplex() -> None:
    preferences = sample_preferences("uniform", 20_000, 2, np.random.default_rng(0))
    np.testing.assert_allclose(preferences.sum(axis=1), 1.0)
    # Flat Dirichlet in 2-D: the first weight is U(0, 1).
    assert np.mean(preferences[:, 0] < 0.25) == pytest.approx(0.25, abs=0.015)
    assert np.mean(preferences[:, 0] < 0.8) == pytest.approx(0.8, abs=0.015)


def test_uniform_rejects_draws_outside_the_bounds() -> None:
    bounds = [[0.2, 0.8], [0.2, 0.8]]
    preferences = sample_preferences("uniform", 10_000, 2, np.random.default_rng(1), bounds)
    assert (preferences >= 0.2).all() and (preferences <= 0.8).all()
    # Conditioned on [0.2, 0.8], the first weight is U(0.2, 0.8).
    assert np.mean(preferences[:, 0] < 0.35) == pytest.approx(0.25, abs=0.02)
    three = sample_preferences("uniform", 2_000, 3, np.random.default_rng(2), [[0, 0.5]] * 3)
    assert three.shape == (2_000, 3) and (three <= 0.5).all()
    np.testing.assert_allclose(three.sum(axis=1), 1.0)


def test_wide_is_a_normalised_pair_of_uniforms() -> None:
    preferences = sample_preferences("wide", 20_000, 2, np.random.default_rng(3))
    np.testing.assert_allclose(preferences.sum(axis=1), 1.0)
    # X = a / (a + b) with a, b ~ U(0, 1): P(X < t) = t / (2 (1 - t)) for t <= 1/2.
    assert np.mean(preferences[:, 0] < 0.25) == pytest.approx(1 / 6, abs=0.015)
    assert np.mean(preferences[:, 0] < 0.5) == pytest.approx(0.5, abs=0.015)


def test_wide_and_narrow_respect_their_bounds() -> None:
    bounds = [[0.1, 0.7], [0.3, 0.9]]
    wide = sample_preferences("wide", 5_000, 2, np.random.default_rng(4), bounds)
    narrow = sample_preferences("narrow", 5_000, 2, np.random.default_rng(5), [[0, 1], [0, 1]])
    np.testing.assert_allclose(narrow.sum(axis=1), 1.0)
    # Narrow shrinks [0, 1] to [1/3, 2/3] on each side before mapping.
    assert (narrow >= 1 / 3 - 1e-12).all() and (narrow <= 2 / 3 + 1e-12).all()
    assert narrow[:, 0].std() < wide[:, 0].std()


@pytest.mark.parametrize(
    ("bounds", "pattern"),
    [
        ([[0.6, 1.0], [0.6, 1.0]], "no preference summing to 1"),
        ([[0.0, 1.0]], "expected 2 pairs"),
        ([[0.5, 0.2], [0.0, 1.0]], "low <= high"),
    ],
)
def test_impossible_bounds_are_refused(bounds: list, pattern: str) -> None:
    with pytest.raises(ParetoscopeError, match=pattern):
        sample_preferences("uniform", 10, 2, np.random.default_rng(0), bounds)


def test_unknown_distribution() -> None:
    with pytest.raises(ParetoscopeError, match="expected one of uniform, wide, narrow"):
        sample_preferences("gaussian", 10, 2, np.random.default_rng(0))


# --- behaviour noise ----------------------------------------------------------------------------


class _ConstantAgent(LinearTestAgent):
    def __init__(self, value: float) -> None:
        super().__init__(CHEETAH)
        self.value = value

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        return np.full((len(observations), 6), self.value)


def _noisy_actions(agent: Agent, env_id: str, seeds: list[int], steps: int) -> np.ndarray:
    noisy = AmateurAgent(agent, env_id, seeds)
    noisy.reset(len(seeds))
    dims = 6 if env_id == CHEETAH else 2
    return np.stack(
        [
            noisy.act(
                np.zeros((len(seeds), 17)), np.full((len(seeds), 2), 0.5), np.zeros((len(seeds), 2))
            )[:, :dims]
            for _ in range(steps)
        ]
    )


def test_amateur_keeps_35_percent_and_scales_the_rest() -> None:
    actions = _noisy_actions(_ConstantAgent(0.5), CHEETAH, [1, 2, 3, 4], steps=3000)
    scales = actions / 0.5  # (steps, rows, dims)
    # One scalar per step and row: all action dimensions share it.
    np.testing.assert_allclose(scales, scales[:, :, :1].repeat(6, axis=2))
    scale = scales[:, :, 0].ravel()
    kept = np.isclose(scale, 1.0, atol=0)
    assert kept.mean() == pytest.approx(0.35, abs=0.02)
    assert scale.min() >= 0.35 and scale.max() <= 1.65
    scaled = scale[~kept]
    assert scaled.mean() == pytest.approx(1.0, abs=0.02)  # U(0.35, 1.65)
    assert np.mean(scaled < 0.675) == pytest.approx(0.25, abs=0.02)


def test_amateur_clips_to_the_action_bounds() -> None:
    actions = _noisy_actions(_ConstantAgent(0.9), CHEETAH, [7], steps=2000)
    assert actions.max() == 1.0
    assert np.mean(actions == 1.0) == pytest.approx(0.65 * (1.65 - 1 / 0.9) / 1.3, abs=0.03)


def test_amateur_noise_depends_only_on_the_row_seed() -> None:
    together = _noisy_actions(_ConstantAgent(0.5), CHEETAH, [11, 12, 13], steps=50)
    alone = _noisy_actions(_ConstantAgent(0.5), CHEETAH, [12], steps=50)
    np.testing.assert_array_equal(together[:, 1], alone[:, 0])
    other = _noisy_actions(_ConstantAgent(0.5), CHEETAH, [14], steps=50)
    assert not np.array_equal(other[:, 0], alone[:, 0])


def test_amateur_swimmer_takes_random_actions_instead_of_deterministic() -> None:
    agent = LinearTestAgent("MO-Swimmer-v2")
    agent.act = lambda observations, preferences, targets: np.full((len(observations), 2), 0.5)  # type: ignore[method-assign]
    noisy = AmateurAgent(agent, "MO-Swimmer-v2", [3])
    noisy.reset(1)
    actions = np.stack(
        [
            noisy.act(np.zeros((1, 8)), np.full((1, 2), 0.5), np.zeros((1, 2)))[0]
            for _ in range(3000)
        ]
    )
    # Scaled rows have equal entries; random rows almost never do.
    differing = ~np.isclose(actions[:, 0], actions[:, 1])
    assert differing.mean() == pytest.approx(0.35, abs=0.03)
    assert np.abs(actions).max() <= 1.0


def test_expert_is_the_agent_itself() -> None:
    agent = LinearTestAgent(CHEETAH)
    assert behaviour_agent(agent, "expert", CHEETAH, np.array([1])) is agent
    with pytest.raises(ParetoscopeError, match="expected one of expert, amateur"):
        behaviour_agent(agent, "novice", CHEETAH, np.array([1]))


def _gaussian_actions(
    value: float, action_noise: float, seeds: list[int], steps: int
) -> np.ndarray:
    noisy = GaussianNoiseAgent(_ConstantAgent(value), CHEETAH, seeds, action_noise)
    noisy.reset(len(seeds))
    rows = len(seeds)
    return np.stack(
        [
            noisy.act(np.zeros((rows, 17)), np.full((rows, 2), 0.5), np.zeros((rows, 2)))
            for _ in range(steps)
        ]
    )


def test_gaussian_noise_has_the_asked_spread_per_dimension() -> None:
    # HalfCheetah's actions lie in [-1, 1]: half the range is 1, so sigma is the noise itself.
    deviations = (_gaussian_actions(0.0, 0.1, [1, 2], steps=4000) - 0.0).reshape(-1, 6)
    assert deviations.mean() == pytest.approx(0.0, abs=0.005)
    np.testing.assert_allclose(deviations.std(axis=0), 0.1, rtol=0.05)
    # Independent across dimensions, unlike the amateur's one scalar per step.
    assert abs(np.corrcoef(deviations[:, 0], deviations[:, 1])[0, 1]) < 0.05


def test_gaussian_noise_clips_to_the_action_bounds() -> None:
    actions = _gaussian_actions(0.95, 0.1, [5], steps=4000)
    assert actions.max() == 1.0
    # P(0.95 + 0.1 Z > 1) = P(Z > 0.5) = 0.3085.
    assert np.mean(actions == 1.0) == pytest.approx(0.3085, abs=0.02)


def test_gaussian_noise_depends_only_on_the_row_seed() -> None:
    together = _gaussian_actions(0.2, 0.05, [11, 12, 13], steps=40)
    alone = _gaussian_actions(0.2, 0.05, [12], steps=40)
    np.testing.assert_array_equal(together[:, 1], alone[:, 0])


@pytest.mark.parametrize(
    ("quality", "action_noise", "pattern"),
    [
        ("expert", -0.1, "expected a finite fraction"),
        ("expert", float("nan"), "expected a finite fraction"),
        ("amateur", 0.05, "expert quality only"),
    ],
)
def test_bad_action_noise_is_refused(quality: str, action_noise: float, pattern: str) -> None:
    agent = LinearTestAgent(CHEETAH)
    with pytest.raises(ParetoscopeError, match=pattern):
        behaviour_agent(agent, quality, CHEETAH, np.array([1]), action_noise)


# --- collection ---------------------------------------------------------------------------------

HORIZON = 12


def test_collect_matches_direct_rollouts_and_round_trips_through_d4morl(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH, seed=3)
    out = collect(
        agent,
        CHEETAH,
        episodes=5,
        out=tmp_path / "collected",
        distribution="wide",
        quality="expert",
        seed=42,
        batch_size=2,
        horizon=HORIZON,
        d4morl_out=tmp_path / "collected.pkl",
    )
    native = open_native(out)
    assert native.info.quality == "expert" and native.info.preference_distribution == "wide"
    assert native.info.extra["seed"] == 42

    # Independent truth: the rollouts themselves, for the same plan.
    preferences, env_seeds, _ = episode_plan(42, 5, 2, "wide")
    direct = rollout_batch(agent, CHEETAH, preferences, env_seeds, horizon=HORIZON, record=True)
    assert direct.trajectories is not None
    for index, steps in enumerate(direct.trajectories):
        trajectory = native.trajectory(index)
        np.testing.assert_array_equal(trajectory.observations, steps["observations"])
        np.testing.assert_array_equal(trajectory.actions, steps["actions"])
        np.testing.assert_array_equal(trajectory.raw_rewards, steps["raw_rewards"])
        np.testing.assert_array_equal(trajectory.terminals, steps["terminals"])
        np.testing.assert_array_equal(
            trajectory.next_observations_or_derived(), steps["next_observations"]
        )
        np.testing.assert_array_equal(trajectory.preference, preferences[index])
    np.testing.assert_allclose(native.returns, direct.returns, rtol=1e-12)

    # collect -> D4MORL -> read: identical arrays.
    from_pickle = read_d4morl(tmp_path / "collected.pkl", env_id=CHEETAH)
    for name in ("observations", "actions", "raw_rewards", "terminals", "preferences", "offsets"):
        np.testing.assert_array_equal(
            getattr(from_pickle, name), getattr(native, name), err_msg=name
        )


def test_collect_is_reproducible_whatever_the_batch_size(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH, seed=4)
    settings = dict(episodes=4, distribution="uniform", quality="amateur", seed=7, horizon=HORIZON)
    first = open_native(collect(agent, CHEETAH, out=tmp_path / "a", batch_size=4, **settings))
    second = open_native(collect(agent, CHEETAH, out=tmp_path / "b", batch_size=3, **settings))
    for name in ("observations", "actions", "raw_rewards", "preferences", "offsets"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
    other = open_native(
        collect(agent, CHEETAH, out=tmp_path / "c", batch_size=4, **{**settings, "seed": 8})
    )
    assert not np.array_equal(other.actions, first.actions)


def test_amateur_collection_differs_from_expert(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH, seed=5)
    settings = dict(episodes=2, distribution="uniform", seed=1, horizon=HORIZON, batch_size=2)
    expert = open_native(collect(agent, CHEETAH, out=tmp_path / "e", quality="expert", **settings))
    amateur = open_native(
        collect(agent, CHEETAH, out=tmp_path / "a", quality="amateur", **settings)
    )
    np.testing.assert_array_equal(expert.preferences, amateur.preferences)
    np.testing.assert_array_equal(expert.observations[0], amateur.observations[0])  # same reset
    assert not np.array_equal(expert.actions, amateur.actions)


def test_collect_bad_arguments(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH)
    with pytest.raises(ParetoscopeError, match="episodes must be >= 1"):
        collect(agent, CHEETAH, episodes=0, out=tmp_path / "x")
    with pytest.raises(ParetoscopeError, match="quality 'pro'"):
        collect(agent, CHEETAH, episodes=1, out=tmp_path / "x", quality="pro")
    with pytest.raises(ParetoscopeError, match="unknown environment id"):
        collect(agent, "MO-Unicorn-v2", episodes=1, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


class _ReplayAgent(LinearTestAgent):
    """Plays back one recorded action sequence, whatever it observes."""

    def __init__(self, actions: np.ndarray) -> None:
        super().__init__(CHEETAH)
        self.actions, self.step = actions, 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        self.step += 1
        return self.actions[self.step - 1 : self.step]


def test_noisy_expert_records_the_actions_it_executed(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH, seed=8)
    settings = dict(episodes=3, distribution="uniform", seed=5, horizon=HORIZON, batch_size=2)
    expert = open_native(collect(agent, CHEETAH, out=tmp_path / "e", **settings))
    noisy = open_native(collect(agent, CHEETAH, out=tmp_path / "n", action_noise=0.2, **settings))
    assert noisy.info.extra["action_noise"] == 0.2
    assert "action_noise" not in expert.info.extra
    assert noisy.info.behaviour == "expert behaviour with action noise 0.2"
    assert expert.info.behaviour == "expert behaviour"
    np.testing.assert_array_equal(expert.observations[0], noisy.observations[0])  # same reset
    # The first action is the policy's plus the noise: off by about 0.2 per dimension.
    first = noisy.trajectory(0)
    offset = first.actions[0] - expert.trajectory(0).actions[0]
    assert 0.02 < np.abs(offset).mean() < 0.5
    # Replaying the recorded actions from the same reset gives the recorded episode.
    preferences, env_seeds, _ = episode_plan(5, 3, 2, "uniform")
    replay = rollout_batch(
        _ReplayAgent(first.actions), CHEETAH, preferences[:1], env_seeds[:1], horizon=HORIZON,
        record=True,
    )  # fmt: skip
    assert replay.trajectories is not None
    np.testing.assert_array_equal(replay.trajectories[0]["observations"], first.observations)
    np.testing.assert_array_equal(replay.trajectories[0]["raw_rewards"], first.raw_rewards)


def test_noise_on_an_amateur_collection_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="expert quality only"):
        collect(
            LinearTestAgent(CHEETAH), CHEETAH, episodes=1, out=tmp_path / "x",
            quality="amateur", action_noise=0.1,
        )  # fmt: skip
    assert not (tmp_path / "x").exists() and not (tmp_path / ".x.partial").exists()


class _InterruptingAgent(LinearTestAgent):
    """Raises KeyboardInterrupt on the `after`-th reset (i.e. in the middle of a collection)."""

    def __init__(self, after: int) -> None:
        super().__init__(CHEETAH, seed=6)
        self.resets, self.after = 0, after

    def reset(self, batch_size: int) -> None:
        self.resets += 1
        if self.resets == self.after:
            raise KeyboardInterrupt


def test_interrupted_collection_resumes_to_the_same_data(tmp_path: Path) -> None:
    settings = dict(
        episodes=7, distribution="uniform", quality="amateur", seed=3, horizon=HORIZON,
        agent_name="linear",
    )  # fmt: skip
    whole = open_native(
        collect(
            LinearTestAgent(CHEETAH, seed=6),
            CHEETAH,
            out=tmp_path / "whole",
            batch_size=2,
            **settings,
        )
    )
    with pytest.raises(KeyboardInterrupt):
        collect(
            _InterruptingAgent(after=3), CHEETAH, out=tmp_path / "resumed", batch_size=2, **settings
        )
    assert not (tmp_path / "resumed").exists()
    partial = tmp_path / ".resumed.partial"
    assert partial.is_dir()

    counting = _InterruptingAgent(after=-1)
    resumed = open_native(
        collect(counting, CHEETAH, out=tmp_path / "resumed", batch_size=2, **settings)
    )
    assert counting.resets == 2  # the 2 batches left (episodes 4-5 and 6), not all 4
    assert not partial.exists()
    for name in ("observations", "actions", "raw_rewards", "terminals", "preferences", "offsets"):
        np.testing.assert_array_equal(getattr(resumed, name), getattr(whole, name), err_msg=name)


def test_a_partial_run_with_other_settings_is_not_resumed(tmp_path: Path) -> None:
    settings = dict(episodes=6, distribution="uniform", seed=3, horizon=HORIZON, agent_name="a")
    with pytest.raises(KeyboardInterrupt):
        collect(_InterruptingAgent(after=2), CHEETAH, out=tmp_path / "o", batch_size=2, **settings)
    counting = _InterruptingAgent(after=-1)
    collect(counting, CHEETAH, out=tmp_path / "o", batch_size=2, **{**settings, "seed": 4})
    assert counting.resets == 3  # started over


def test_episodes_capped_by_the_collection_horizon_did_not_end_early(tmp_path: Path) -> None:
    agent = LinearTestAgent(CHEETAH, seed=2)
    out = collect(agent, CHEETAH, episodes=2, out=tmp_path / "c", horizon=HORIZON)
    assert open_native(out).info.horizon == HORIZON
    np.testing.assert_array_equal(open_native(out).ended_early(), [False, False])
    from paretoscope.data import dataset_summary

    assert dataset_summary(out).n_ended_early == 0
    assert open_native(out).ended_early(horizon=500).all()
