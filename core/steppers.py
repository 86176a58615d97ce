"""Batch steppers: B episodes of one environment advanced together, one env step at a time.

Two implementations of one small interface (`reset`, `step`):
- `D4MORLBatch` steps `mujoco.MjData` directly with the D4MORL formulas applied to the whole
  batch at once: the same numbers as `make_env(...).step`, without gymnasium's per-step cost;
- `GymnasiumBatch` steps one `make_env` environment per row (MO-Gymnasium tasks), whatever
  their spaces: discrete actions, image observations, `Dict` observations (flattened).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from core.envs import EnvSpec, make_env
from core.envs.d4morl import formulas
from core.envs.d4morl.physics import D4MORLPhysics, instability_count


@dataclass
class BatchStep:
    """What one env step gave the `rows` that were stepped (arrays aligned with `rows`)."""

    rows: np.ndarray  # (K,) indices of the stepped rows
    observations: np.ndarray  # (K, *obs_shape): float64, or uint8 for images
    actions: np.ndarray  # (K, act_dim) clipped to the bounds, or (K,) discrete actions
    rewards: np.ndarray  # (K, n_obj) as the env hands them out (float32 values)
    terminated: np.ndarray  # (K,) bool: ended by the env's rule
    finite: np.ndarray  # (K,) bool: state and reward are finite
    # (K,) bool: the env cut the episode itself (its own time limit or duration).
    truncated: np.ndarray | None = None


class BatchStepper(Protocol):
    def reset(self, seeds: np.ndarray) -> np.ndarray: ...

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep: ...

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData] | None:
        """The live MuJoCo model and data of `row` (for rendering; valid until the next step),
        or None for an env that paretoscope's renderer does not draw."""
        ...

    def live_env(self, row: int) -> gym.Env | None:
        """The gymnasium env of `row`, for envs that draw themselves (`env.render()`)."""
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

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData] | None:
        return self.model, self.datas[row]

    def live_env(self, row: int) -> gym.Env | None:
        return None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self.datas.clear()


class GymnasiumBatch:
    """One gymnasium environment per row, stepped in turn.

    `render` makes the envs that draw themselves with ``render_mode="rgb_array"`` (streams that
    show frames); rendering never changes what an env does, only whether it can draw.
    """

    def __init__(self, spec: EnvSpec, batch_size: int, render: bool = False) -> None:
        self.spec = spec
        render_mode = "rgb_array" if render and spec.camera is None else None
        self._global_random = bool(spec.extra.get("global_numpy_random"))
        with self._caller_random_kept():  # minecart draws while it is built, too
            self.envs = [make_env(spec.id, render_mode=render_mode) for _ in range(batch_size)]
        space = self.envs[0].observation_space if self.envs else None
        # A Dict observation is flattened (one-hot for its discrete parts), as agents expect.
        self._flatten = space if isinstance(space, spaces.Dict) else None
        self._obs_dtype = np.uint8 if _is_image(spec.obs_shape) else np.float64
        self.low = np.asarray(spec.action_low)
        self.high = np.asarray(spec.action_high)
        self._random_states: list[Any] = []

    @contextlib.contextmanager
    def _caller_random_kept(self) -> Iterator[None]:
        """Numpy's global generator is as the caller left it after what runs inside."""
        if not self._global_random:
            yield
            return
        with _GLOBAL_RANDOM_LOCK:
            outside = np.random.get_state()
            try:
                yield
            finally:
                np.random.set_state(outside)

    @contextlib.contextmanager
    def _row_random(self, row: int) -> Iterator[None]:
        """Numpy's global generator holds row `row`'s own state while its env runs.

        For envs that draw from `np.random` (minecart's ore): an episode is then fixed by its
        seed. The lock keeps rollouts in other threads from swapping the state meanwhile.
        """
        if not self._global_random:
            yield
            return
        with _GLOBAL_RANDOM_LOCK:
            outside = np.random.get_state()
            np.random.set_state(self._random_states[row])
            try:
                yield
            finally:
                self._random_states[row] = np.random.get_state()
                np.random.set_state(outside)

    def _observation(self, observation: object) -> np.ndarray:
        if self._flatten is not None:
            observation = spaces.flatten(self._flatten, observation)
        return np.asarray(observation, dtype=self._obs_dtype).reshape(self.spec.obs_shape)

    def reset(self, seeds: np.ndarray) -> np.ndarray:
        if self._global_random:
            self._random_states = [
                np.random.RandomState(int(seed) % 2**32).get_state() for seed in seeds
            ]
        observations = []
        for row, (env, seed) in enumerate(zip(self.envs, seeds, strict=True)):
            with self._row_random(row):
                observations.append(self._observation(env.reset(seed=int(seed))[0]))
        return np.stack(observations)

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep:
        spec = self.spec
        observations = np.empty((len(rows), *spec.obs_shape), dtype=self._obs_dtype)
        rewards = np.empty((len(rows), spec.n_obj), dtype=np.float32)
        terminated = np.zeros(len(rows), dtype=bool)
        truncated = np.zeros(len(rows), dtype=bool)
        if spec.discrete:
            applied = actions[rows].astype(np.int64)
        else:
            applied = np.clip(actions[rows], self.low, self.high)
        for index, row in enumerate(rows):
            # Continuous envs get the agent's own action (they clip it as they do for anyone).
            action = int(applied[index]) if spec.discrete else actions[row]
            with self._row_random(row):
                observation, reward, term, trunc, _ = self.envs[row].step(action)
            observations[index] = self._observation(observation)
            rewards[index] = np.asarray(reward, dtype=np.float32)  # some envs hand out lists
            terminated[index] = term
            truncated[index] = trunc
        flat = observations.reshape(len(rows), -1)
        finite = np.asarray(np.isfinite(flat).all(axis=1) & np.isfinite(rewards).all(axis=1))
        return BatchStep(rows, observations, applied, rewards, terminated, finite, truncated)

    def simulation(self, row: int) -> tuple[mujoco.MjModel, mujoco.MjData] | None:
        if self.spec.camera is None:
            return None
        unwrapped = self.envs[row].unwrapped
        return unwrapped.model, unwrapped.data  # type: ignore[attr-defined]

    def live_env(self, row: int) -> gym.Env | None:
        return self.envs[row] if self.spec.camera is None else None

    def close(self) -> None:
        for env in self.envs:
            env.close()


_GLOBAL_RANDOM_LOCK = threading.Lock()


def _is_image(shape: tuple[int, ...]) -> bool:
    return len(shape) == 3 and shape[-1] in (1, 3, 4)


def make_batch_stepper(
    spec: EnvSpec, batch_size: int, threads: int = 1, render: bool = False
) -> BatchStepper:
    """The fastest stepper that reproduces `make_env(spec.id)` exactly.

    `threads` > 1 steps D4MORL rows on that many threads (MuJoCo releases the GIL); MO-Gymnasium
    environments are always stepped in turn. `render`: the stream will draw frames.
    """
    if spec.family == "d4morl":
        return D4MORLBatch(spec, batch_size, threads)
    return GymnasiumBatch(spec, batch_size, render)
