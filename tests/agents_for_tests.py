"""Small hand-written agents that follow the Agent protocol, for tests of the machinery."""

from __future__ import annotations

import numpy as np

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.envs import get_spec
from paretoscope.recordings import EpisodeRequest


class LinearAgent:
    """actions = tanh(W [obs, preference]) * bound: deterministic, stateless, cheap."""

    def __init__(self, env_id: str, seed: int = 0, scale: float = 0.3) -> None:
        spec = get_spec(env_id)
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(0, scale, size=(spec.obs_dim + spec.n_obj, spec.act_dim))
        self.bound = np.asarray(spec.action_high)
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=spec.n_obj,
            obs_dim=spec.obs_dim,
            act_dim=spec.act_dim,
            kind="policy_set",
            conditioning=Conditioning(return_conditioned=False),
        )
        self.calls = 0
        # Identifies the behaviour (not the call counter) for the results store.
        self.fingerprint = f"linear-{env_id}-{seed}-{scale}"

    def reset(self, batch_size: int) -> None:
        self.calls = 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        self.calls += 1
        inputs = np.concatenate([observations, preferences], axis=1)
        # Elementwise products summed per row: unlike a BLAS matmul, the result of a row
        # cannot depend on how many rows share the batch.
        return np.tanh((inputs[:, :, None] * self.weights[None]).sum(axis=1)) * self.bound

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))


class NaNAgent(LinearAgent):
    """Emits NaN actions on the rows whose first preference is above 0.5, from step 3 on."""

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        actions = super().act(observations, preferences, targets)
        if self.calls >= 3:
            actions[preferences[:, 0] > 0.5] = np.nan
        return actions


def episode_of(
    agent: LinearAgent,
    horizon: int,
    *,
    preference: tuple[float, float] = (0.3, 0.7),
    seed: int = 5,
    size: int = 64,
) -> EpisodeRequest:
    """The request for one recorded episode of `agent` in its own env (every frame step drawn,
    no target)."""
    return EpisodeRequest(
        fingerprint=agent.fingerprint,
        env_id=agent.spec.env_id,
        preference=preference,
        target=None,
        seed=seed,
        size=size,
        horizon=horizon,
        every=1,
        label="linear",
    )
