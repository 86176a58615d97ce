"""The Agent protocol on every torch kind (MORvS, BC, MODT): shapes, determinism, row
independence, reset, input checks, and the exact network inputs each kind builds."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
)
from paretoscope.agents.base import Agent, Conditioning
from paretoscope.agents.conditioned import ConditionedAgent, ObservationNormalizer, create_agent
from paretoscope.agents.target_model import LinearTargetModel
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError

ENV = "MO-Hopper-v3"
KINDS = ("morvs", "bc", "modt")
CORNER = ((500.0, 200.0, -100.0), (150.0, 400.0, 80.0), (440.0, 460.0, 520.0))


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny forward passes: on a busy 2-core machine a second intra-op thread only adds waits."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def small_architecture(kind: str, **overrides):
    if kind == "modt":
        fields = {"hidden_size": 32, "n_layer": 2, "n_head": 2, "inner_size": 64}
        return TransformerArchitecture(**{**fields, **overrides})
    if kind == "morvs":
        return MORvSArchitecture(**{"hidden_sizes": (32, 32), **overrides})
    return BCArchitecture(**{"hidden_sizes": (32, 32), "context_length": 4, **overrides})


def make_agent(kind: str, seed: int = 0, **overrides) -> ConditionedAgent:
    spec = get_spec(ENV)
    rng = np.random.default_rng(seed)
    normalizer = ObservationNormalizer(
        mean=tuple(rng.normal(0, 0.5, spec.obs_dim)), std=tuple(rng.uniform(0.5, 2, spec.obs_dim))
    )
    target = None if kind == "bc" else LinearTargetModel(CORNER)
    return create_agent(
        kind,
        ENV,
        architecture=small_architecture(kind, **overrides),
        normalizer=normalizer,
        target_model=target,
        seed=seed,
    )


def episode_inputs(steps: int, batch: int, seed: int, n_obj: int = 3, obs_dim: int = 11):
    rng = np.random.default_rng(seed)
    observations = rng.normal(0, 1, size=(steps, batch, obs_dim))
    preferences = rng.dirichlet(np.ones(n_obj), size=batch)
    targets = rng.uniform(100, 1000, size=(batch, n_obj))
    rewards = rng.normal(1, 0.3, size=(steps, batch, n_obj))
    return observations, preferences, targets, rewards


def run_episode(agent: Agent, observations, preferences, targets, rewards) -> np.ndarray:
    agent.reset(observations.shape[1])
    remaining = targets.copy()
    actions = []
    for t in range(observations.shape[0]):
        actions.append(agent.act(observations[t], preferences, remaining))
        remaining = remaining - rewards[t]
    return np.stack(actions, axis=1)  # (B, steps, act_dim)


@pytest.mark.parametrize("kind", KINDS)
def test_shapes_bounds_and_protocol(kind: str) -> None:
    agent = make_agent(kind)
    assert isinstance(agent, Agent)
    assert (agent.spec.kind, agent.spec.env_id, agent.spec.n_obj) == (kind, ENV, 3)
    actions = run_episode(agent, *episode_inputs(steps=7, batch=5, seed=1))
    assert actions.shape == (5, 7, 3) and actions.dtype == np.float64
    assert np.isfinite(actions).all()
    assert (np.abs(actions) <= np.asarray(get_spec(ENV).action_high) + 1e-12).all()
    assert np.abs(actions).max() > 0


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_and_reset_forgets_history(kind: str) -> None:
    agent = make_agent(kind)
    first = episode_inputs(steps=9, batch=3, seed=2)
    second = episode_inputs(steps=9, batch=3, seed=3)
    a = run_episode(agent, *first)
    run_episode(agent, *second)  # a different episode in between
    b = run_episode(agent, *first)
    np.testing.assert_array_equal(a, b)
    fresh = make_agent(kind)
    np.testing.assert_array_equal(run_episode(fresh, *first), a)


@pytest.mark.parametrize("kind", KINDS)
def test_batch_rows_are_independent(kind: str) -> None:
    agent = make_agent(kind)
    observations, preferences, targets, rewards = episode_inputs(steps=8, batch=4, seed=4)
    base = run_episode(agent, observations, preferences, targets, rewards)
    other_obs, other_prefs, other_targets, other_rewards = episode_inputs(8, 4, seed=5)
    # Row 0 unchanged, every other row different in every input.
    other_obs[:, 0], other_prefs[0], other_targets[0] = (
        observations[:, 0],
        preferences[0],
        targets[0],
    )
    other_rewards[:, 0] = rewards[:, 0]
    changed = run_episode(agent, other_obs, other_prefs, other_targets, other_rewards)
    assert not np.allclose(changed[1:], base[1:])
    np.testing.assert_allclose(changed[0], base[0], rtol=0, atol=1e-6)
    alone = run_episode(agent, observations[:, :1], preferences[:1], targets[:1], rewards[:, :1])
    np.testing.assert_allclose(alone[0], base[0], rtol=0, atol=1e-5)


def capture_inputs(agent: ConditionedAgent) -> list[tuple[torch.Tensor, ...]]:
    captured: list[tuple[torch.Tensor, ...]] = []
    agent.network.register_forward_hook(
        lambda module, args, output: captured.append(tuple(a.clone() for a in args))
    )
    return captured


def hand_state(agent: ConditionedAgent, observation: np.ndarray, preference: np.ndarray):
    mean, std = np.asarray(agent.normalizer.mean), np.asarray(agent.normalizer.std)
    return np.clip(np.concatenate([(observation - mean) / std, preference]), -10, 10)


def test_morvs_input_is_state_and_average_remaining_return() -> None:
    agent = make_agent("morvs", horizon=6)
    captured = capture_inputs(agent)
    observations, preferences, targets, rewards = episode_inputs(steps=8, batch=2, seed=6)
    run_episode(agent, observations, preferences, targets, rewards)
    remaining = targets.copy()
    for t in range(8):
        steps_left = max(6 - t, 1)  # past the horizon the goal stops dividing
        for row in range(2):
            goal = preferences[row] * remaining[row] / 1000 / steps_left
            expected = np.concatenate(
                [hand_state(agent, observations[t, row], preferences[row]), goal]
            )
            np.testing.assert_allclose(captured[t][0][row].numpy(), expected, rtol=2e-6, atol=2e-6)
        remaining = remaining - rewards[t]


def test_bc_input_is_left_padded_window_of_states() -> None:
    agent = make_agent("bc")
    captured = capture_inputs(agent)
    observations, preferences, targets, rewards = episode_inputs(steps=6, batch=2, seed=7)
    run_episode(agent, observations, preferences, targets, rewards)
    for t in range(6):
        for row in range(2):
            states = [
                hand_state(agent, observations[s, row], preferences[row]) for s in range(t + 1)
            ]
            window = np.zeros((4, 14))
            recent = np.stack(states[-4:])
            window[4 - len(recent) :] = recent
            np.testing.assert_allclose(
                captured[t][0][row].numpy(), window.reshape(-1), rtol=2e-6, atol=2e-6
            )


def test_modt_context_window_and_timestep_clamp() -> None:
    agent = make_agent("modt", context_length=3, max_timestep=4)
    captured = capture_inputs(agent)
    observations, preferences, targets, rewards = episode_inputs(steps=6, batch=2, seed=8)
    actions = run_episode(agent, observations, preferences, targets, rewards)
    bound = np.asarray(get_spec(ENV).action_high)
    remaining = [targets.copy()]
    for t in range(6):
        remaining.append(remaining[-1] - rewards[t])
    for t in range(6):
        states, acts, returns, timesteps, mask = (x.numpy() for x in captured[t])
        n = min(t + 1, 3)
        np.testing.assert_array_equal(mask, [[0] * (3 - n) + [1] * n] * 2)
        expected_steps = [min(s, 3) for s in range(t + 1 - n, t + 1)]
        np.testing.assert_array_equal(timesteps[:, 3 - n :], [expected_steps] * 2)
        assert (states[:, : 3 - n] == 0).all() and (returns[:, : 3 - n] == 0).all()
        for row in range(2):
            p = preferences[row]
            for slot, step in enumerate(range(t + 1 - n, t + 1)):
                column = 3 - n + slot
                rtg = np.concatenate([p * remaining[step][row] / 1000, p])
                np.testing.assert_allclose(returns[row, column], rtg, rtol=1e-6)
                # Past actions are the network outputs (before scaling); the current one is zero.
                past = actions[row, step] / bound if step < t else np.zeros(3)
                np.testing.assert_allclose(acts[row, column], np.concatenate([past, p]), atol=1e-6)
                state = hand_state(agent, observations[step, row], p)
                np.testing.assert_allclose(states[row, column], state, rtol=2e-6, atol=2e-6)


def test_scalar_return_is_the_weighted_sum() -> None:
    conditioning = Conditioning(preference_in_state=True, vector_return=False)
    agent = create_agent(
        "morvs",
        ENV,
        architecture=small_architecture("morvs"),
        conditioning=conditioning,
        target_model=LinearTargetModel(CORNER),
    )
    targets, preferences = np.array([[100.0, 200.0, 300.0]]), np.array([[0.5, 0.25, 0.25]])
    np.testing.assert_allclose(agent.encode_returns(targets, preferences), [[0.175]])
    assert agent.network.layers[0].in_features == 11 + 3 + 1


def test_initial_target() -> None:
    morvs, bc = make_agent("morvs"), make_agent("bc")
    preferences = np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    expected = preferences @ np.asarray(CORNER).T
    np.testing.assert_allclose(morvs.initial_target(preferences), expected)
    np.testing.assert_allclose(morvs.initial_target(preferences[1]), expected[1])
    np.testing.assert_array_equal(bc.initial_target(preferences), np.zeros((2, 3)))


def test_bad_inputs_raise_clear_errors() -> None:
    agent = make_agent("modt")
    observations, preferences, targets, _ = episode_inputs(steps=1, batch=2, seed=9)
    with pytest.raises(ParetoscopeError, match="before reset"):
        agent.act(observations[0], preferences, targets)
    agent.reset(2)
    with pytest.raises(ParetoscopeError, match=r"observations: expected shape \(2, 11\)"):
        agent.act(observations[0][:, :5], preferences, targets)
    with pytest.raises(ParetoscopeError, match=r"targets: expected shape \(2, 3\)"):
        agent.act(observations[0], preferences, targets[:1])
    with pytest.raises(ParetoscopeError, match=r"preferences: expected shape \(2, 3\)"):
        agent.act(observations[0], preferences[:, :2], targets)
    with pytest.raises(ParetoscopeError, match=r"\(2, 11\) after reset\(2\), got \(1, 11\)"):
        agent.act(observations[0][:1], preferences[:1], targets[:1])
    with pytest.raises(ParetoscopeError, match="batch_size"):
        agent.reset(0)


def test_construction_refuses_inconsistent_settings() -> None:
    with pytest.raises(ParetoscopeError, match="target_model"):
        create_agent("modt", ENV, architecture=small_architecture("modt"))
    with pytest.raises(ParetoscopeError, match="preference through the state only"):
        create_agent(
            "morvs",
            ENV,
            architecture=small_architecture("morvs"),
            conditioning=Conditioning(preference_in_action=True),
            target_model=LinearTargetModel(CORNER),
        )
    with pytest.raises(ParetoscopeError, match="action_bound"):
        create_agent("bc", ENV, architecture=small_architecture("bc"), action_bound=(1.0, 1.0))
    with pytest.raises(ParetoscopeError, match="n_head"):
        TransformerArchitecture(hidden_size=30, n_head=4)
    with pytest.raises(ParetoscopeError, match="kind"):
        create_agent("ppo", ENV)


def test_default_architecture_follows_the_env_horizon() -> None:
    agent = create_agent("bc", "mo-halfcheetah-v5", seed=0)
    assert agent.architecture.hidden_sizes == (512, 512, 512)
    assert agent.architecture.context_length == 20
    modt = create_agent(
        "modt",
        "mo-halfcheetah-v5",
        architecture=None,
        target_model=LinearTargetModel(((1.0, 0.0), (0.0, 1.0))),
        seed=0,
    )
    assert modt.architecture.max_timestep == 1000
    assert modt.network.embed_timestep.num_embeddings == 1000


def test_cuda_is_refused_cleanly_without_a_gpu() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; see test_cuda_matches_cpu")
    with pytest.raises(ParetoscopeError, match="CUDA is not available"):
        create_agent("bc", ENV, architecture=small_architecture("bc"), device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("kind", KINDS)
def test_cuda_matches_cpu(kind: str) -> None:
    inputs = episode_inputs(steps=7, batch=3, seed=10)
    cpu = run_episode(make_agent(kind), *inputs)
    gpu_agent = make_agent(kind).to("cuda")
    assert next(gpu_agent.network.parameters()).is_cuda
    np.testing.assert_allclose(run_episode(gpu_agent, *inputs), cpu, rtol=0, atol=1e-4)
