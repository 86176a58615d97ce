"""Imported PEDA checkpoints act exactly as PEDA does (fixtures: tests/fixtures/peda).

golden.json holds, per env and model type, PEDA's own outputs for fixed inputs. The first step
goes through the public `act`; the 7-step history and the training forward go through the
network and `assemble_context`. A multi-step rollout is compared with a per-row reference
evaluator written here from the fixture README's description of PEDA's evaluators.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache

import numpy as np
import pytest
import torch

from paretoscope.agents.conditioned import ConditionedAgent, assemble_context
from paretoscope.agents.peda import import_peda
from paretoscope.agents.peda.constants import PEDA_OBSERVATION_STATISTICS
from tests.conftest import PEDA_FIXTURES

TOLERANCE = 1e-5
MODELS = [
    (env, peda_type)
    for env in ("MO-HalfCheetah-v2", "MO-Hopper-v3")
    for peda_type in ("dt", "rvs", "bc")
]


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny forward passes: on a busy 2-core machine a second intra-op thread only adds waits."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@cache
def golden() -> dict:
    assert PEDA_FIXTURES.is_dir(), f"PEDA fixtures missing at {PEDA_FIXTURES}"
    return json.loads((PEDA_FIXTURES / "golden.json").read_text())


@cache
def manifest() -> dict:
    return json.loads((PEDA_FIXTURES / "manifest.json").read_text())


@cache
def agent_for(env: str, peda_type: str) -> ConditionedAgent:
    entry = golden()["models"][f"{env}/{peda_type}"]
    return import_peda(PEDA_FIXTURES / entry["checkpoint"], env, peda_type)


def case(env: str, peda_type: str, name: str) -> dict:
    cases = golden()["models"][f"{env}/{peda_type}"]["cases"]
    return next(c for c in cases if c["name"] == name)


def tensor(entry: dict) -> torch.Tensor:
    return torch.tensor(entry["values"], dtype=getattr(torch, entry["dtype"]))


@pytest.mark.parametrize(("env", "peda_type"), MODELS)
def test_checkpoint_is_the_one_the_golden_values_came_from(env: str, peda_type: str) -> None:
    # A re-saved or truncated copy would make every comparison below meaningless.
    entry = golden()["models"][f"{env}/{peda_type}"]
    digest = hashlib.sha256((PEDA_FIXTURES / entry["checkpoint"]).read_bytes()).hexdigest()
    assert digest == entry["checkpoint_sha256"]


def test_observation_statistics_are_pedas_for_every_env() -> None:
    # The golden cases cover two envs; PEDA's own file has all six that the constants list.
    peda = json.loads((PEDA_FIXTURES / "state_norm_params.json").read_text())["state_norm_params"]
    assert sorted(peda) == sorted(PEDA_OBSERVATION_STATISTICS)
    for env, stats in peda.items():
        ours = PEDA_OBSERVATION_STATISTICS[env]
        assert ours["mean"] == tuple(stats["mean"]), env
        assert ours["var"] == tuple(stats["var"]), env


@pytest.mark.parametrize(("env", "peda_type"), MODELS)
def test_first_step_through_act(env: str, peda_type: str) -> None:
    first = case(env, peda_type, "first_step")
    agent = agent_for(env, peda_type)
    preference = np.asarray([first["preference"]])
    # golden's target_return is PEDA's internal p ⊙ target / 1000; the protocol wants the target.
    target = np.asarray([first["target_return"]]) * 1000.0 / preference
    agent.reset(1)
    action = agent.act(np.asarray([first["raw_obs"]]), preference, target)
    assert action.shape == (1, len(first["env_action"]))
    np.testing.assert_allclose(action[0], first["env_action"], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize(("env", "peda_type"), MODELS)
def test_state_normalisation_matches_peda(env: str, peda_type: str) -> None:
    first = case(env, peda_type, "first_step")
    agent = agent_for(env, peda_type)
    states = agent.normalize_states(
        torch.tensor([first["raw_obs"]], dtype=torch.float32),
        torch.tensor([first["preference"]], dtype=torch.float32),
    )
    key = "observation" if peda_type == "rvs" else "states"
    assert torch.allclose(states, tensor(first["inputs"][key]), rtol=0, atol=1e-6)


def test_first_step_rvs_goal_is_target_over_horizon() -> None:
    first = case("MO-Hopper-v3", "rvs", "first_step")
    agent = agent_for("MO-Hopper-v3", "rvs")
    preference = np.asarray([first["preference"]])
    target = np.asarray([first["target_return"]]) * 1000.0 / preference
    goal = agent.encode_returns(target, preference) / 500
    np.testing.assert_allclose(goal, first["inputs"]["goal"]["values"], rtol=1e-6)


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_dt_history_case(env: str) -> None:
    history = case(env, "dt", "history")
    agent = agent_for(env, "dt")
    inputs = history["inputs"]
    window = assemble_context(
        tensor(inputs["states"])[None],
        tensor(inputs["actions"])[None],
        tensor(inputs["returns_to_go"])[None],
        tensor(inputs["pref"])[None],
        tensor(inputs["timesteps"]),
        agent.spec.conditioning,
        agent.architecture.context_length,
    )
    with torch.no_grad():
        output = agent.network(*window)[0, -1]
    expected = history["output_action"]["values"]
    np.testing.assert_allclose(output.numpy(), expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(
        output.numpy() * agent.action_bound, history["env_action"], rtol=0, atol=TOLERANCE
    )


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_rvs_history_case(env: str) -> None:
    history = case(env, "rvs", "history")
    agent = agent_for(env, "rvs")
    inputs = history["inputs"]
    with torch.no_grad():
        output = agent.network(
            torch.cat((tensor(inputs["observation"]), tensor(inputs["goal"])), 1)
        )
    np.testing.assert_allclose(
        output[0].numpy() * agent.action_bound, history["env_action"], rtol=0, atol=TOLERANCE
    )


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_bc_history_case_left_padded_to_twenty(env: str) -> None:
    history = case(env, "bc", "history")
    agent = agent_for(env, "bc")
    states = tensor(history["inputs"]["states"])
    padded = torch.cat((torch.zeros(20 - states.shape[0], states.shape[1]), states))
    with torch.no_grad():
        output = agent.network(padded.reshape(1, -1))
    np.testing.assert_allclose(
        output[0].numpy() * agent.action_bound, history["env_action"], rtol=0, atol=TOLERANCE
    )


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_dt_training_forward(env: str) -> None:
    forward = case(env, "dt", "train_forward_eval_mode")
    agent = agent_for(env, "dt")
    inputs = forward["inputs"]
    with torch.no_grad():
        hidden = agent.network.hidden_states(
            tensor(inputs["states"]),
            tensor(inputs["actions"]),
            tensor(inputs["returns_to_go"]),
            tensor(inputs["timesteps"]),
            tensor(inputs["attention_mask"]),
        )
        actions = agent.network.predict_action(hidden[:, 1])
        returns, preferences = agent.network.auxiliary_predictions(hidden)
    outputs = forward["outputs"]
    # Padded positions included: the masking constants are GPT-2's, not -inf.
    for name, value in (
        ("action_preds", actions),
        ("return_preds", returns),
        ("pref_preds", preferences),
    ):
        assert torch.allclose(value, tensor(outputs[name]), rtol=0, atol=TOLERANCE), name


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_rvs_training_forward(env: str) -> None:
    forward = case(env, "rvs", "train_forward_eval_mode")
    agent = agent_for(env, "rvs")
    with torch.no_grad():
        prediction = agent.network(tensor(forward["inputs"]["obs_goal"]))
    expected = tensor(forward["outputs"]["prediction"])
    assert torch.allclose(prediction, expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("env", ["MO-HalfCheetah-v2", "MO-Hopper-v3"])
def test_bc_training_forward(env: str) -> None:
    forward = case(env, "bc", "train_forward_eval_mode")
    agent = agent_for(env, "bc")
    states = tensor(forward["inputs"]["states"])
    with torch.no_grad():
        prediction = agent.network(states.reshape(states.shape[0], -1))
    expected = tensor(forward["outputs"]["action_preds"])[:, 0]
    assert torch.allclose(prediction, expected, rtol=0, atol=TOLERANCE)


# --- a multi-step rollout against a literal, per-row reimplementation of PEDA's evaluators -----


def reference_state(env: str, observation: np.ndarray, preference: np.ndarray) -> np.ndarray:
    stats = manifest()["state_norm_params"][env]
    mean = np.concatenate([stats["mean"], np.zeros(len(preference))]).astype(np.float32)
    std = np.concatenate([np.sqrt(stats["var"]), np.ones(len(preference))]).astype(np.float32)
    state = np.concatenate([observation, preference]).astype(np.float32)
    return np.clip((state - mean) / std, -10, 10)


def reference_episode(
    agent: ConditionedAgent,
    peda_type: str,
    env: str,
    preference: np.ndarray,
    initial_target: np.ndarray,
    observations: np.ndarray,
    rewards: np.ndarray,
) -> np.ndarray:
    """One row, unbatched, following PEDA's evaluator loop step by step."""
    network = agent.network
    scale, horizon, context = 1000.0, 500, 5
    rtg = [preference * initial_target / scale]  # PEDA's weighted target_return
    states, actions, timesteps, outputs = [], [], [], []
    for t, observation in enumerate(observations):
        states.append(reference_state(env, observation, preference))
        with torch.no_grad():
            if peda_type == "rvs":
                goal = rtg[-1] / (horizon - t)
                x = torch.tensor(np.concatenate([states[-1], goal]), dtype=torch.float32)
                action = network(x[None])[0].numpy()
            elif peda_type == "bc":
                window = np.stack(states[-20:])
                window = np.concatenate([np.zeros((20 - len(window), window.shape[1])), window])
                action = network(torch.tensor(window, dtype=torch.float32).reshape(1, -1))[0]
                action = action.numpy()
            else:
                actions.append(np.zeros(agent.spec.act_dim))
                timesteps.append(t)
                n = min(len(states), context)
                s = np.stack(states[-n:])
                a = np.concatenate([np.stack(actions[-n:]), np.tile(preference, (n, 1))], 1)
                r = np.concatenate([np.stack(rtg[-n:]), np.tile(preference, (n, 1))], 1)
                ts = np.asarray(timesteps[-n:])
                pad = context - n

                def padded(x: np.ndarray, pad: int = pad) -> torch.Tensor:
                    z = np.zeros((pad, *x.shape[1:]), dtype=x.dtype)
                    return torch.tensor(np.concatenate([z, x]))[None]

                mask = torch.tensor([0.0] * pad + [1.0] * n)[None]
                out = network(
                    padded(s.astype(np.float32)),
                    padded(a.astype(np.float32)),
                    padded(r.astype(np.float32)),
                    padded(ts.astype(np.int64)),
                    mask,
                )
                action = out[0, -1].numpy()
                actions[-1] = action
        outputs.append(action * agent.action_bound)
        rtg.append(rtg[-1] - preference * rewards[t] / scale)
    return np.stack(outputs)


@pytest.mark.parametrize(("env", "peda_type"), MODELS)
def test_batched_rollout_matches_reference_evaluator(env: str, peda_type: str) -> None:
    agent = agent_for(env, peda_type)
    spec = agent.spec
    rng = np.random.default_rng(7)
    steps, batch = 8, 3  # longer than the DT context of 5
    preferences = rng.dirichlet(np.ones(spec.n_obj), size=batch)
    targets = agent.initial_target(preferences)
    observations = rng.normal(0, 1, size=(steps, batch, spec.obs_dim))
    rewards = rng.normal(1, 0.5, size=(steps, batch, spec.n_obj))

    agent.reset(batch)
    remaining = targets.copy()
    actions = []
    for t in range(steps):
        actions.append(agent.act(observations[t], preferences, remaining))
        remaining = remaining - rewards[t]  # what the rollout loop does
    batched = np.stack(actions, axis=1)

    for row in range(batch):
        expected = reference_episode(
            agent,
            peda_type,
            env,
            preferences[row],
            targets[row],
            observations[:, row],
            rewards[:, row],
        )
        np.testing.assert_allclose(batched[row], expected, rtol=0, atol=TOLERANCE)
