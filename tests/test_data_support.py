"""Helpers for the data tests: synthetic D4MORL content built by hand, and a tiny linear agent.

The synthetic entries follow docs/reference.md#d4morl-dataset-files literally (a list of
defaultdict(list) of float64 arrays, bool terminals, the preference repeated on every step),
independently of the writer in paretoscope.data.
"""

from __future__ import annotations

import collections
import pickle
from pathlib import Path

import numpy as np

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.envs import get_spec

CHEETAH = "MO-HalfCheetah-v2"  # 17-dim observations, 6 actions, 2 objectives, horizon 500
CHEETAH_FILE = "MO-HalfCheetah-v2_50000_expert_uniform.pkl"


def make_entry(
    rng: np.random.Generator, length: int, obs_dim: int = 17, act_dim: int = 6, n_obj: int = 2
) -> collections.defaultdict:
    """One D4MORL trajectory with consistent next_observations and a terminal last step."""
    states = rng.normal(size=(length + 1, obs_dim))
    preference = rng.dirichlet(np.ones(n_obj))
    entry: collections.defaultdict = collections.defaultdict(list)
    entry["observations"] = states[:-1].copy()
    entry["actions"] = rng.uniform(-1, 1, size=(length, act_dim))
    entry["next_observations"] = states[1:].copy()
    entry["preference"] = np.tile(preference, (length, 1))
    terminals = np.zeros(length, dtype=bool)
    terminals[-1:] = True
    entry["terminals"] = terminals
    entry["raw_rewards"] = rng.normal(1.0, 2.0, size=(length, n_obj))
    return entry


def make_entries(count: int, seed: int = 0, max_length: int = 40) -> list:
    rng = np.random.default_rng(seed)
    return [make_entry(rng, int(rng.integers(1, max_length + 1))) for _ in range(count)]


def write_pickle(path: Path, content: object) -> Path:
    with open(path, "wb") as file:
        pickle.dump(content, file, protocol=4)
    return path


class LinearTestAgent:
    """actions = tanh(W [obs, preference]) * bound, row by row: deterministic and stateless."""

    def __init__(self, env_id: str, seed: int = 0, scale: float = 0.3) -> None:
        spec = get_spec(env_id)
        self.weights = np.random.default_rng(seed).normal(
            0, scale, size=(spec.obs_dim + spec.n_obj, spec.act_dim)
        )
        self.bound = np.asarray(spec.action_high)
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=spec.n_obj,
            obs_dim=spec.obs_dim,
            act_dim=spec.act_dim,
            kind="policy_set",
            conditioning=Conditioning(return_conditioned=False),
        )

    def reset(self, batch_size: int) -> None:
        pass

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        inputs = np.concatenate([observations, preferences], axis=1)
        # Summed products (not a BLAS matmul) so a row's action never depends on the batch.
        return np.tanh((inputs[:, :, None] * self.weights[None]).sum(axis=1)) * self.bound

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))
