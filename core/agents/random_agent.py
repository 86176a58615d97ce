"""`random`: the built-in baseline, uniform over any env's action space, usable by name.

Every front can be compared with chance, and any env opened, rendered and swept without a
trained agent. Row i draws from a generator seeded by (agent seed, row i's episode seed), so an
episode is the same whatever batch it runs in and whichever seeds run beside it.

Continuous bounds: uniform in [low, high] where both are finite; where one is infinite the
draw follows gymnasium's `Box.sample` (low + Exp(1), high - Exp(1), or N(0, 1)).
"""

from __future__ import annotations

import numpy as np

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.envs import EnvSpec, get_spec

RANDOM_AGENT = "random"
_NO_CONDITIONING = Conditioning(preference_in_state=False, return_conditioned=False)
# Discrete actions are drawn this many steps ahead per row: `integers(n, size=k)` gives the same
# numbers as k calls of `integers(n)`, at a fraction of the cost per step.
_AHEAD = 32


class RandomAgent:
    """Uniform random actions for `env_id`, independent per row, deterministic per seed."""

    # Its actions depend on neither preference nor target: a sweep plays one episode per seed.
    preference_blind = True

    def __init__(self, env_id: str, seed: int = 0) -> None:
        env = get_spec(env_id)
        self.env: EnvSpec = env
        self.seed = int(seed)
        self.spec = AgentSpec.for_env(env, "random", _NO_CONDITIONING)
        self._low = np.asarray(env.action_low, dtype=np.float64)
        self._high = np.asarray(env.action_high, dtype=np.float64)
        self._generators: list[np.random.Generator] = []
        self._ahead = np.zeros((0, 0), dtype=np.int64)  # (B, k) discrete draws not used yet
        self._next = 0

    def fingerprint(self) -> str:
        return f"random:{self.env.id}:seed={self.seed}"

    def reset(self, batch_size: int) -> None:
        # Without `seed_rows` (a caller that drives the agent by hand), the first `act` seeds
        # row i with seed i; a rollout calls `seed_rows` right after this.
        self.seed_rows(np.arange(0))

    def seed_rows(self, seeds: np.ndarray) -> None:
        self._generators = [np.random.default_rng([self.seed, int(seed)]) for seed in seeds]
        self._ahead = np.zeros((len(self._generators), 0), dtype=np.int64)
        self._next = 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        batch = len(observations)
        if len(self._generators) != batch:
            self.seed_rows(np.arange(batch))
        if self.env.n_actions is not None:
            if self._next == self._ahead.shape[1]:
                n = self.env.n_actions
                draws = [rng.integers(n, size=_AHEAD) for rng in self._generators]
                self._ahead = np.array(draws, dtype=np.int64).reshape(batch, _AHEAD)
                self._next = 0
            self._next += 1
            return self._ahead[:, self._next - 1].copy()
        return np.stack([self._box_sample(rng) for rng in self._generators])

    def _box_sample(self, rng: np.random.Generator) -> np.ndarray:
        low, high = self._low, self._high
        bounded = np.isfinite(low) & np.isfinite(high)
        draw = rng.uniform(np.where(bounded, low, 0.0), np.where(bounded, high, 1.0))
        above = np.isfinite(low) & ~np.isfinite(high)
        below = ~np.isfinite(low) & np.isfinite(high)
        unbounded = ~np.isfinite(low) & ~np.isfinite(high)
        if above.any() or below.any() or unbounded.any():
            exponential = rng.exponential(size=low.shape)
            normal = rng.normal(size=low.shape)
            draw = np.where(above, low + exponential, draw)
            draw = np.where(below, high - exponential, draw)
            draw = np.where(unbounded, normal, draw)
        return draw

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros((len(np.atleast_2d(preferences)), self.env.n_obj))
