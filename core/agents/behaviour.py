"""Behaviour quality as D4MORL defines it: expert (the policy as is) or amateur (noisy actions),
and optional Gaussian action noise on the expert.

Amateur, per step and per batch row: with probability 0.35 the policy's deterministic action,
otherwise that action times one scalar drawn from U(0.35, 1.65); then clipped to the action
bounds. PEDA's collection script treats Swimmer differently: its 0.35 branch takes a uniformly
random action instead of the deterministic one, and `AmateurAgent` does the same for
MO-Swimmer-v2. Each row draws from its own generator, seeded per episode, so the noise of an
episode does not depend on which batch it ran in.

Action noise (paretoscope's, not D4MORL's): every executed action gets independent Gaussian noise
of standard deviation `action_noise` times half the action range, then is clipped to the bounds.
An expert set without it holds only the states on the policies' own paths, and an imitator
that drifts off them has seen nothing there; a little noise widens the paths (at 5% noise the
bundled Hopper members fall in a third of their episodes: that is how little it takes).
The recorded action is the executed one, so every transition stays one the env really made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paretoscope.agents.base import Agent, AgentSpec
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

QUALITIES: tuple[str, ...] = ("expert", "amateur")
KEEP_PROBABILITY = 0.35
SCALE_LOW, SCALE_HIGH = 0.35, 1.65
# Envs whose amateur "keep" branch is a uniformly random action in PEDA's collection script.
_RANDOM_INSTEAD_OF_DETERMINISTIC = frozenset({"MO-Swimmer-v2"})


class _RowNoiseAgent:
    """Wraps an agent and perturbs its actions with one seeded generator per batch row."""

    label = "noise"

    def __init__(self, agent: Agent, env_id: str, row_seeds: Sequence[int] | np.ndarray) -> None:
        self.agent = agent
        self.spec: AgentSpec = agent.spec
        env_spec = get_spec(env_id)
        self._low = np.asarray(env_spec.action_low, dtype=np.float64)
        self._high = np.asarray(env_spec.action_high, dtype=np.float64)
        self._row_seeds = [int(seed) for seed in np.asarray(row_seeds).reshape(-1)]
        self._generators: list[np.random.Generator] = []

    def reset(self, batch_size: int) -> None:
        if batch_size != len(self._row_seeds):
            raise ParetoscopeError(
                f"{self.label}: batch of {batch_size} rows but {len(self._row_seeds)} row seeds"
            )
        self._generators = [np.random.default_rng(seed) for seed in self._row_seeds]
        self.agent.reset(batch_size)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        actions = np.array(self.agent.act(observations, preferences, targets), dtype=np.float64)
        for row, generator in enumerate(self._generators):
            actions[row] = self._perturb(actions[row], generator)
        return np.clip(actions, self._low, self._high)

    def _perturb(self, action: np.ndarray, generator: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return self.agent.initial_target(preferences)


class AmateurAgent(_RowNoiseAgent):
    """Wraps an agent with D4MORL's amateur action noise (see module docstring)."""

    label = "amateur noise"

    def __init__(self, agent: Agent, env_id: str, row_seeds: Sequence[int] | np.ndarray) -> None:
        super().__init__(agent, env_id, row_seeds)
        self._random_branch = env_id in _RANDOM_INSTEAD_OF_DETERMINISTIC

    def _perturb(self, action: np.ndarray, generator: np.random.Generator) -> np.ndarray:
        keep = generator.random() < KEEP_PROBABILITY
        if keep and self._random_branch:
            return generator.uniform(self._low, self._high)
        return action if keep else action * generator.uniform(SCALE_LOW, SCALE_HIGH)


class GaussianNoiseAgent(_RowNoiseAgent):
    """Wraps an agent with Gaussian action noise (see module docstring)."""

    label = "action noise"

    def __init__(
        self,
        agent: Agent,
        env_id: str,
        row_seeds: Sequence[int] | np.ndarray,
        action_noise: float,
    ) -> None:
        super().__init__(agent, env_id, row_seeds)
        self._scale = check_behaviour("expert", action_noise) * (self._high - self._low) / 2

    def _perturb(self, action: np.ndarray, generator: np.random.Generator) -> np.ndarray:
        return action + self._scale * generator.standard_normal(action.shape[0])


def check_behaviour(quality: str, action_noise: float = 0.0) -> float:
    """The action noise as a float, or a clear error for an unknown quality, a negative or
    non-finite noise, or noise on an amateur set (D4MORL's amateur has its own)."""
    if quality not in QUALITIES:
        raise ParetoscopeError(
            f"behaviour quality {briefly(quality)}: expected one of {', '.join(QUALITIES)}"
        )
    value = float(action_noise)
    if not np.isfinite(value) or value < 0:
        raise ParetoscopeError(
            f"action noise {briefly(action_noise)}: expected a finite fraction of the action "
            "range >= 0"
        )
    if value and quality != "expert":
        raise ParetoscopeError("action noise applies to expert quality only")
    return value


def behaviour_agent(
    agent: Agent, quality: str, env_id: str, row_seeds: np.ndarray, action_noise: float = 0.0
) -> Agent:
    """`agent` itself for expert quality (wrapped in `GaussianNoiseAgent` with `action_noise`),
    wrapped in `AmateurAgent` for amateur."""
    action_noise = check_behaviour(quality, action_noise)
    if quality == "amateur":
        return AmateurAgent(agent, env_id, row_seeds)
    if action_noise:
        return GaussianNoiseAgent(agent, env_id, row_seeds, action_noise)
    return agent
