"""An agent that replays a stored action sequence open loop: a dataset trajectory as video."""

from __future__ import annotations

import numpy as np

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError


class ReplayAgent:
    """Plays `actions` one per step (one episode at a time), ignoring preference and target;
    past the end it repeats the last action."""

    def __init__(self, env_id: str, actions: np.ndarray) -> None:
        spec = get_spec(env_id)
        self.actions = np.asarray(actions, dtype=np.float64).reshape(-1, spec.act_dim)
        if len(self.actions) == 0:
            raise ParetoscopeError("a replay needs at least one stored action")
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=spec.n_obj,
            obs_dim=spec.obs_dim,
            act_dim=spec.act_dim,
            kind="policy_set",
            conditioning=Conditioning(
                preference_in_state=False, return_conditioned=False, vector_return=False
            ),
        )
        self._step = 0
        self.fingerprint = "replay"

    def reset(self, batch_size: int) -> None:
        if batch_size != 1:
            raise ParetoscopeError("a replay plays one trajectory at a time")
        self._step = 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        index = min(self._step, len(self.actions) - 1)
        self._step += 1
        return self.actions[index][None, :].copy()

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))
