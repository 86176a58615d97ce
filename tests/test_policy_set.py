"""The policy_set agent: the Agent protocol, nearest-member choice, checkpoints and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.base import Agent
from paretoscope.agents.policy_set import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    PolicySetAgent,
    load_policy_set,
    save_policy_set,
)
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch

CHEETAH = "MO-HalfCheetah-v2"


def random_set(env_id: str = CHEETAH, seed: int = 0, with_returns: bool = True) -> PolicySetAgent:
    """Three members at (1,0), (0.5,0.5), (0,1) with random matrices and normalisers."""
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    count = 3
    preferences = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    return PolicySetAgent(
        env_id,
        preferences,
        rng.normal(0.0, 0.5, size=(count, spec.act_dim, spec.obs_dim)),
        rng.normal(0.0, 1.0, size=(count, spec.obs_dim)),
        rng.uniform(0.5, 2.0, size=(count, spec.obs_dim)),
        rng.uniform(0.0, 1000.0, size=(count, spec.n_obj)) if with_returns else None,
        training={"method": "test"},
    )


def batch(env_id: str, rows: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    observations = rng.normal(0.0, 1.0, size=(rows, spec.obs_dim))
    preferences = rng.dirichlet(np.ones(spec.n_obj), size=rows)
    targets = rng.uniform(0.0, 1000.0, size=(rows, spec.n_obj))
    return observations, preferences, targets


# --- the protocol -------------------------------------------------------------------------------


def test_follows_the_agent_protocol_with_its_spec() -> None:
    agent = random_set()
    assert isinstance(agent, Agent)
    spec = get_spec(CHEETAH)
    assert agent.spec.kind == "policy_set"
    assert (agent.spec.env_id, agent.spec.n_obj, agent.spec.obs_dim, agent.spec.act_dim) == (
        CHEETAH,
        spec.n_obj,
        spec.obs_dim,
        spec.act_dim,
    )
    assert agent.spec.conditioning.return_conditioned is False


def test_actions_have_the_right_shape_and_respect_the_bounds() -> None:
    agent = random_set()
    observations, preferences, targets = batch(CHEETAH, 7, seed=1)
    agent.reset(7)
    actions = agent.act(observations * 50.0, preferences, targets)
    assert actions.shape == (7, 6)
    assert actions.dtype == np.float64
    assert (actions >= -1.0).all() and (actions <= 1.0).all()
    assert (np.abs(actions) == 1.0).any()  # large inputs do reach the bounds


def test_hopper_actions_are_clipped_to_its_own_bounds() -> None:
    env_id = "MO-Hopper-v3"
    spec = get_spec(env_id)
    preferences = np.array([[1.0, 0.0, 0.0]])
    matrix = np.zeros((1, 3, spec.obs_dim))
    matrix[0, :, 0] = 100.0  # every action = 100 x first coordinate
    agent = PolicySetAgent(env_id, preferences, matrix, np.zeros((1, 11)), np.ones((1, 11)))
    observations = np.zeros((2, 11))
    observations[0, 0], observations[1, 0] = 1.0, -1.0
    actions = agent.act(observations, np.repeat(preferences, 2, axis=0), np.zeros((2, 3)))
    np.testing.assert_array_equal(actions, [[2.0, 2.0, 4.0], [-2.0, -2.0, -4.0]])


def test_act_is_deterministic_and_ignores_targets() -> None:
    agent = random_set()
    observations, preferences, targets = batch(CHEETAH, 5, seed=2)
    first = agent.act(observations, preferences, targets)
    again = agent.act(observations, preferences, targets * 3.0 - 7.0)
    np.testing.assert_array_equal(first, again)


def test_batch_rows_are_independent() -> None:
    agent = random_set()
    observations, preferences, targets = batch(CHEETAH, 9, seed=3)
    together = agent.act(observations, preferences, targets)
    for row in range(9):
        alone = agent.act(
            observations[row : row + 1], preferences[row : row + 1], targets[row : row + 1]
        )
        np.testing.assert_array_equal(alone[0], together[row])
    reversed_rows = agent.act(observations[::-1], preferences[::-1], targets[::-1])
    np.testing.assert_array_equal(reversed_rows[::-1], together)


def test_each_row_uses_the_nearest_member_by_hand() -> None:
    # Member k answers action[0] = (k + 1) * observation[0] and 0 elsewhere (mean 0, std 1).
    spec = get_spec(CHEETAH)
    matrices = np.zeros((3, spec.act_dim, spec.obs_dim))
    for member in range(3):
        matrices[member, 0, 0] = member + 1.0
    agent = PolicySetAgent(
        CHEETAH,
        [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
        matrices * 0.1,
        np.zeros((3, spec.obs_dim)),
        np.ones((3, spec.obs_dim)),
    )
    queries = np.array(
        [
            [1.0, 0.0],  # exactly member 0
            [0.8, 0.2],  # distances² 0.08 / 0.18 / 1.28 -> 0
            [0.7, 0.3],  # 0.18 / 0.08 -> 1
            [0.75, 0.25],  # 0.125 / 0.125: a tie goes to the lower index -> 0
            [0.25, 0.75],  # 0.125 to members 1 and 2 -> 1
            [0.1, 0.9],  # -> 2
        ]
    )
    expected_members = [0, 0, 1, 0, 1, 2]
    np.testing.assert_array_equal(agent.nearest_members(queries), expected_members)
    observations = np.zeros((6, spec.obs_dim))
    observations[:, 0] = 1.0
    actions = agent.act(observations, queries, np.zeros((6, 2)))
    np.testing.assert_allclose(actions[:, 0], [0.1 * (m + 1) for m in expected_members])
    assert (actions[:, 1:] == 0.0).all()


def test_the_linear_map_matches_a_hand_computation() -> None:
    spec = get_spec("MO-Swimmer-v2")  # 8 observations, 2 actions
    rng = np.random.default_rng(4)
    matrix = rng.normal(0, 0.2, size=(1, 2, 8))
    mean, std = rng.normal(size=(1, 8)), rng.uniform(0.5, 2.0, size=(1, 8))
    agent = PolicySetAgent("MO-Swimmer-v2", [[0.5, 0.5]], matrix, mean, std)
    observation = rng.normal(size=8)
    expected = []
    for action_index in range(spec.act_dim):
        total = 0.0
        for j in range(8):
            total += matrix[0, action_index, j] * (observation[j] - mean[0, j]) / std[0, j]
        expected.append(min(1.0, max(-1.0, total)))
    actions = agent.act(observation[None], np.array([[0.3, 0.7]]), np.zeros((1, 2)))
    np.testing.assert_allclose(actions[0], expected, rtol=1e-12, atol=1e-12)


def test_initial_target_is_the_nearest_members_return_or_zero() -> None:
    agent = random_set()
    queries = np.array([[0.9, 0.1], [0.45, 0.55], [0.0, 1.0]])
    assert agent.mean_returns is not None
    np.testing.assert_array_equal(agent.initial_target(queries), agent.mean_returns[[0, 1, 2]])
    without = random_set(with_returns=False)
    np.testing.assert_array_equal(without.initial_target(queries), np.zeros((3, 2)))


def test_runs_in_the_rollout_loop() -> None:
    agent = random_set()
    result = rollout_batch(agent, CHEETAH, [[1.0, 0.0], [0.2, 0.8]], seeds=[0, 1], horizon=20)
    assert result.returns.shape == (2, 2)
    np.testing.assert_array_equal(result.targets, agent.initial_target(result.preferences))


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("observations", "preferences", "message"),
    [
        (np.zeros((2, 16)), np.full((2, 2), 0.5), "observations"),
        (np.zeros((2, 17)), np.full((2, 3), 1 / 3), "preferences"),
        (np.zeros((2, 17)), np.full((3, 2), 0.5), "preferences"),
        (np.full((2, 17), np.nan), np.full((2, 2), 0.5), "observations"),
    ],
)
def test_act_rejects_bad_batches(
    observations: np.ndarray, preferences: np.ndarray, message: str
) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        random_set().act(observations, preferences, np.zeros((2, 2)))


def test_constructor_rejects_inconsistent_members() -> None:
    spec = get_spec(CHEETAH)
    good = {
        "preferences": [[1.0, 0.0]],
        "matrices": np.zeros((1, 6, 17)),
        "obs_mean": np.zeros((1, 17)),
        "obs_std": np.ones((1, 17)),
    }
    PolicySetAgent(CHEETAH, **good)  # the reference case builds
    bad_cases = {
        "preferences": [[0.7, 0.7]],
        "matrices": np.zeros((1, 6, 16)),
        "obs_mean": np.zeros((2, 17)),
        "obs_std": np.zeros((1, spec.obs_dim)),
    }
    for field, value in bad_cases.items():
        with pytest.raises(ParetoscopeError, match=field):
            PolicySetAgent(CHEETAH, **{**good, field: value})
    with pytest.raises(ParetoscopeError, match="unknown environment"):
        PolicySetAgent("NoSuchEnv-v0", **good)


# --- checkpoints -------------------------------------------------------------------------------


def test_save_load_round_trip_gives_identical_actions(tmp_path: Path) -> None:
    agent = random_set()
    save_policy_set(agent, tmp_path / "set")
    loaded = load_policy_set(tmp_path / "set")
    observations, preferences, targets = batch(CHEETAH, 11, seed=5)
    np.testing.assert_array_equal(
        loaded.act(observations, preferences, targets),
        agent.act(observations, preferences, targets),
    )
    np.testing.assert_array_equal(loaded.preferences, agent.preferences)
    np.testing.assert_array_equal(loaded.obs_mean, agent.obs_mean)
    np.testing.assert_array_equal(loaded.obs_std, agent.obs_std)
    assert loaded.mean_returns is not None and agent.mean_returns is not None
    np.testing.assert_array_equal(loaded.mean_returns, agent.mean_returns)
    assert loaded.training == {"method": "test"}
    assert loaded.spec == agent.spec


def test_the_generic_checkpoint_loader_rebuilds_a_policy_set(tmp_path: Path) -> None:
    from paretoscope.agents import checkpoint

    agent = random_set(with_returns=False)
    checkpoint.save(agent, tmp_path / "set")
    loaded = checkpoint.load(tmp_path / "set")
    assert isinstance(loaded, PolicySetAgent)
    observations, preferences, targets = batch(CHEETAH, 4, seed=6)
    np.testing.assert_array_equal(
        loaded.act(observations, preferences, targets),
        agent.act(observations, preferences, targets),
    )
    assert loaded.mean_returns is None


def _edit_config(folder: Path, edit) -> None:  # type: ignore[no-untyped-def]
    config = json.loads((folder / CONFIG_FILE).read_text())
    edit(config)
    (folder / CONFIG_FILE).write_text(json.dumps(config))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda folder: (folder / WEIGHTS_FILE).unlink(), "weights.safetensors missing"),
        (lambda folder: (folder / CONFIG_FILE).unlink(), "config.json missing"),
        (lambda folder: (folder / CONFIG_FILE).write_text("{not json"), "not readable JSON"),
        (
            lambda folder: (folder / WEIGHTS_FILE).write_bytes(
                (folder / WEIGHTS_FILE).read_bytes()[:40]
            ),
            "sha256 differs",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c.update(kind="modt")),
            "kind",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c.update(format_version=99)),
            "version",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c.update(obs_dim=16)),
            "obs_dim",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c["members"][0].pop("obs_std")),
            "obs_std",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c["members"].pop()),
            "matrices",
        ),
        (
            lambda folder: _edit_config(folder, lambda c: c["members"][1].update(mean_return=None)),
            "mean_return",
        ),
        (
            lambda folder: _edit_config(
                folder, lambda c: c["members"][0].update(obs_std=[0.0] * 17)
            ),
            "obs_std",
        ),
    ],
)
def test_damaged_checkpoints_raise_a_clear_error(tmp_path: Path, damage, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "set"
    save_policy_set(random_set(), folder)
    damage(folder)
    with pytest.raises(ParetoscopeError, match=message):
        load_policy_set(folder)


def test_truncated_weights_without_a_digest_raise(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    save_policy_set(random_set(), folder)
    _edit_config(folder, lambda c: c.pop("weights"))
    (folder / WEIGHTS_FILE).write_bytes((folder / WEIGHTS_FILE).read_bytes()[:40])
    with pytest.raises(ParetoscopeError, match="safetensors"):
        load_policy_set(folder)


def test_weights_from_another_save_are_refused(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    save_policy_set(random_set(seed=1), first)
    save_policy_set(random_set(seed=2), second)
    shutil.copy(second / WEIGHTS_FILE, first / WEIGHTS_FILE)
    with pytest.raises(ParetoscopeError, match="sha256"):
        load_policy_set(first)


def test_fingerprint_follows_the_policies_not_their_use_or_provenance(tmp_path) -> None:
    from paretoscope.agents.checkpoint import load, save

    agent = random_set()
    before = agent.fingerprint()
    agent.reset(2)
    agent.act(
        np.zeros((2, agent.spec.obs_dim)), np.full((2, agent.spec.n_obj), 0.5), np.zeros((2, 2))
    )
    assert agent.fingerprint() == before
    save(agent, tmp_path / "set")
    assert load(tmp_path / "set").fingerprint() == before
    changed = random_set()
    changed.matrices[0, 0, 0] += 1e-9
    assert changed.fingerprint() != before
