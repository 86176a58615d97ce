"""Batch steppers: B episodes of one environment advanced together, one env step at a time.

Two implementations of one small interface (`reset`, `step`):
- `D4MORLBatch` steps `mujoco.MjData` directly with the D4MORL formulas applied to the whole
  batch at once: the same numbers as `make_env(...).step`, without gymnasium's per-step cost;
- `GymnasiumBatch` steps one `make_env` environment per row (MO-Gymnasium tasks).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import mujoco
import numpy as np
from gymnasium.utils import seeding

from core.envs import EnvSpec, make_env
from core.envs.d4morl import formulas
from core.envs.d4morl.physics import D4MORLPhysics, instability_count


@dataclass
class BatchStep:
    """What one env step gave the `rows` that were stepped (arrays aligned with `rows`)."""

    rows: np.ndarray  # (K,) indices of the stepped rows
    observations: np.ndarray  # (K, obs_dim) float64
    actions: np.ndarray  # (K, act_dim) the actions after clipping to the bounds
    rewards: np.ndarray  # (K, n_obj) as the env hands them out (float32 values)
    terminated: np.ndarray  # (K,) bool: ended by the env's rule
    finite: np.ndarray  # (K,) bool: state and reward are finite


class BatchStepper(Protocol):
    def reset(self, seeds: np.ndarray) -> np.ndarray: ...

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep: ...

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData]:
        """The live MuJoCo model and data of `row` (for rendering; valid until the next step)."""
        ...

    def close(self) -> None: ...


class D4MORLBatch:
    """B `MjData` of one compiled D4MORL model; rewards and termination computed batched."""

    def __init__(self, spec: EnvSpec, batch_size: int, threads: int = 1) -> None:
        self.physics = D4MORLPhysics(spec)
        self.model = self.physics.model
        self.datas = [self.physics.make_data() for _ in range(batch_size)]
        self._ends_on_instability = self.physics.task.terminated is formulas.not_finite_terminated
        # mj_step releases the GIL, so threads step disjoint rows in parallel; each row's
        # arithmetic is unchanged, so results do not depend on the thread count.
        self.threads = max(1, min(int(threads), batch_size))
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def reset(self, seeds: np.ndarray) -> np.ndarray:
        # The same generator gymnasium's `reset(seed=...)` makes, so episodes match make_env's.
        for data, seed in zip(self.datas, seeds, strict=True):
            generator, _ = seeding.np_random(int(seed))
            self.physics.reset_data(data, generator)
        qpos = np.stack([data.qpos for data in self.datas])
        qvel = np.stack([data.qvel for data in self.datas])
        return self.physics.observation(qpos, qvel)

    def _advance(
        self,
        rows: np.ndarray,
        positions: range,
        clipped: np.ndarray,
        qpos_before: np.ndarray,
        unstable: np.ndarray,
    ) -> None:
        """Step the rows at `positions` of `rows` (one thread's share of the batch)."""
        model, frame_skip = self.model, self.physics.frame_skip
        # Only tasks that end on instability (Ant) pay for reading MuJoCo's warning counters.
        watch_instability = self._ends_on_instability
        for index in positions:
            data = self.datas[rows[index]]
            qpos_before[index] = data.qpos
            if watch_instability:
                warnings_before = instability_count(data)
            data.ctrl[:] = clipped[index]
            mujoco.mj_step(model, data, nstep=frame_skip)
            if watch_instability:
                unstable[index] = instability_count(data) != warnings_before

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep:
        physics = self.physics
        clipped = physics.clip_action(actions[rows])
        qpos_before = np.empty((len(rows), self.model.nq))
        unstable = np.zeros(len(rows), dtype=bool)
        if self._pool is None or len(rows) < 2 * self.threads:
            self._advance(rows, range(len(rows)), clipped, qpos_before, unstable)
        else:
            shares = [range(start, len(rows), self.threads) for start in range(self.threads)]
            for future in [
                self._pool.submit(self._advance, rows, share, clipped, qpos_before, unstable)
                for share in shares
            ]:
                future.result()
        qpos = np.stack([self.datas[row].qpos for row in rows])
        qvel = np.stack([self.datas[row].qvel for row in rows])
        rewards = physics.rewards(qpos_before, qpos, clipped).astype(np.float32)
        terminated = np.asarray(physics.terminated(qpos, qvel), dtype=bool)
        terminated |= unstable
        observations = physics.observation(qpos, qvel)
        finite = np.asarray(
            np.isfinite(observations).all(axis=1) & np.isfinite(rewards).all(axis=1)
        )
        return BatchStep(rows, observations, clipped, rewards, terminated, finite)

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData]:
        return self.model, self.datas[row]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self.datas.clear()


class GymnasiumBatch:
    """One gymnasium environment per row, stepped in turn."""

    def __init__(self, spec: EnvSpec, batch_size: int) -> None:
        self.spec = spec
        self.envs = [make_env(spec.id) for _ in range(batch_size)]
        self.low = np.asarray(spec.action_low)
        self.high = np.asarray(spec.action_high)

    def reset(self, seeds: np.ndarray) -> np.ndarray:
        return np.stack(
            [env.reset(seed=int(seed))[0] for env, seed in zip(self.envs, seeds, strict=True)]
        ).astype(np.float64)

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep:
        observations = np.empty((len(rows), self.spec.obs_dim))
        rewards = np.empty((len(rows), self.spec.n_obj), dtype=np.float32)
        terminated = np.zeros(len(rows), dtype=bool)
        for index, row in enumerate(rows):
            observation, reward, term, _truncated, _ = self.envs[row].step(actions[row])
            observations[index] = observation
            rewards[index] = reward
            terminated[index] = term
        finite = np.asarray(
            np.isfinite(observations).all(axis=1) & np.isfinite(rewards).all(axis=1)
        )
        clipped = np.clip(actions[rows], self.low, self.high)
        return BatchStep(rows, observations, clipped, rewards, terminated, finite)

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData]:
        unwrapped = self.envs[row].unwrapped
        return unwrapped.model, unwrapped.data  # type: ignore[attr-defined]

    def close(self) -> None:
        for env in self.envs:
            env.close()


def make_batch_stepper(spec: EnvSpec, batch_size: int, threads: int = 1) -> BatchStepper:
    """The fastest stepper that reproduces `make_env(spec.id)` exactly.

    `threads` > 1 steps D4MORL rows on that many threads (MuJoCo releases the GIL); MO-Gymnasium
    environments are always stepped in turn.
    """
    if spec.family == "d4morl":
        return D4MORLBatch(spec, batch_size, threads)
    return GymnasiumBatch(spec, batch_size)
