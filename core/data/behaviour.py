"""Behaviour quality as D4MORL defines it: expert (the policy as is) or amateur (noisy actions).

Amateur, per step and per batch row: with probability 0.35 the policy's deterministic action,
otherwise that action times one scalar drawn from U(0.35, 1.65); then clipped to the action
bounds. PEDA's collection script treats Swimmer differently: its 0.35 branch takes a uniformly
random action instead of the deterministic one, and `AmateurAgent` does the same for
MO-Swimmer-v2. Each row draws from its own generator, seeded per episode, so the noise of an
episode does not depend on which batch it ran in.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.agents.base import Agent, AgentSpec
from core.envs import get_spec
from core.errors import ParetoscopeError

QUALITIES: tuple[str, ...] = ("expert", "amateur")
KEEP_PROBABILITY = 0.35
SCALE_LOW, SCALE_HIGH = 0.35, 1.65
# Envs whose amateur "keep" branch is a uniformly random action in PEDA's collection script.
_RANDOM_INSTEAD_OF_DETERMINISTIC = frozenset({"MO-Swimmer-v2"})


class AmateurAgent:
    """Wraps an agent with D4MORL's amateur action noise (see module docstring)."""

    def __init__(self, agent: Agent, env_id: str, row_seeds: Sequence[int] | np.ndarray) -> None:
        self.agent = agent
        self.spec: AgentSpec = agent.spec
        env_spec = get_spec(env_id)
        self._low = np.asarray(env_spec.action_low, dtype=np.float64)
        self._high = np.asarray(env_spec.action_high, dtype=np.float64)
        self._random_branch = env_id in _RANDOM_INSTEAD_OF_DETERMINISTIC
        self._row_seeds = [int(seed) for seed in np.asarray(row_seeds).reshape(-1)]
        self._generators: list[np.random.Generator] = []

    def reset(self, batch_size: int) -> None:
        if batch_size != len(self._row_seeds):
            raise ParetoscopeError(
                f"amateur noise: batch of {batch_size} rows but {len(self._row_seeds)} row seeds"
            )
        self._generators = [np.random.default_rng(seed) for seed in self._row_seeds]
        self.agent.reset(batch_size)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        actions = np.array(self.agent.act(observations, preferences, targets), dtype=np.float64)
        for row, generator in enumerate(self._generators):
            keep = generator.random() < KEEP_PROBABILITY
            if keep and self._random_branch:
                actions[row] = generator.uniform(self._low, self._high)
            elif not keep:
                actions[row] *= generator.uniform(SCALE_LOW, SCALE_HIGH)
        return np.clip(actions, self._low, self._high)

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return self.agent.initial_target(preferences)


def behaviour_agent(agent: Agent, quality: str, env_id: str, row_seeds: np.ndarray) -> Agent:
    """`agent` itself for expert quality, wrapped in `AmateurAgent` for amateur."""
    if quality == "expert":
        return agent
    if quality == "amateur":
        return AmateurAgent(agent, env_id, row_seeds)
    raise ParetoscopeError(f"behaviour quality {quality!r}: expected one of {', '.join(QUALITIES)}")
