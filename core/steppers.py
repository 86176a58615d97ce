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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from paretoscope.envs import EnvSpec, make_env
from paretoscope.envs.d4morl import formulas
from paretoscope.envs.d4morl.physics import D4MORLPhysics, instability_count
from paretoscope.envs.episode_random import GLOBAL_NUMPY_DRAWS, global_numpy_random, seed_ore
from paretoscope.envs.mo_gymnasium_suite import TASKS
from paretoscope.envs.registry import REGISTRY
from paretoscope.envs.render_modes import env_id_renders_rgb
from paretoscope.errors import ParetoscopeError


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
    show frames); rendering never changes what an env does, only whether it can draw. Envs
    that do not draw are taken from those earlier batches of this process left (`_IdleEnvs`):
    building one can cost more than its episode (minecart: 12 ms), and `reset(seed=...)` sets
    everything an episode depends on.
    """

    def __init__(self, spec: EnvSpec, batch_size: int, render: bool = False) -> None:
        self.spec = spec
        render_mode = "rgb_array" if render and _draws_itself(spec) else None
        self._global_draws = bool(spec.extra.get(GLOBAL_NUMPY_DRAWS))
        self._reusable = render_mode is None and _IdleEnvs.reusable(spec)
        self.envs = _idle_envs.take(spec.id, batch_size) if self._reusable else []
        missing = batch_size - len(self.envs)
        with global_numpy_random() if self._global_draws else contextlib.nullcontext():
            self.envs += [make_env(spec.id, render_mode=render_mode) for _ in range(missing)]
        space = self.envs[0].observation_space if self.envs else None
        # A Dict observation is flattened (one-hot for its discrete parts), as agents expect.
        self._flatten = space if isinstance(space, spaces.Dict) else None
        self._obs_dtype = np.uint8 if _is_image(spec.obs_shape) else np.float64
        self.low = np.asarray(spec.action_low)
        self.high = np.asarray(spec.action_high)

    def _observation(self, observation: object) -> np.ndarray:
        if self._flatten is not None:
            observation = spaces.flatten(self._flatten, observation)
        return np.asarray(observation, dtype=self._obs_dtype).reshape(self.spec.obs_shape)

    def _reset_row(self, env: gym.Env, seed: int) -> object:
        if not self._global_draws:
            return env.reset(seed=seed)[0]
        with global_numpy_random(seed):
            observation = env.reset(seed=seed)[0]
        seed_ore(env, seed)
        return observation

    def reset(self, seeds: np.ndarray) -> np.ndarray:
        return np.stack(
            [
                self._observation(self._reset_row(env, int(seed)))
                for env, seed in zip(self.envs, seeds, strict=True)
            ]
        )

    def step(self, actions: np.ndarray, rows: np.ndarray) -> BatchStep:
        spec = self.spec
        observations = np.empty((len(rows), *spec.obs_shape), dtype=self._obs_dtype)
        rewards = np.empty((len(rows), spec.n_obj), dtype=np.float32)
        terminated = np.zeros(len(rows), dtype=bool)
        truncated = np.zeros(len(rows), dtype=bool)
        if spec.discrete:
            applied = actions[rows].astype(np.int64)
            env_actions: Any = applied.tolist()
        else:
            applied = np.clip(actions[rows], self.low, self.high)
            # Continuous envs get the agent's own action (they clip it as they do for anyone).
            env_actions = actions[rows]
        envs, to_observation = self.envs, self._observation
        try:
            for index, row in enumerate(rows.tolist()):
                observation, reward, terminated[index], truncated[index], _ = envs[row].step(
                    env_actions[index]
                )
                observations[index] = to_observation(observation)
                rewards[index] = reward  # cast to float32 (some envs hand out lists)
        except BaseException:
            self._reusable = False  # an env that failed mid-step is closed, not reused
            raise
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
        if self._reusable:
            _idle_envs.give_back(self.spec.id, self.envs)
        else:
            for env in self.envs:
                env.close()
        self.envs = []


class _IdleEnvs:
    """Envs that closed batches left behind, for the next batch of the same id in this process.

    Only MO-Gymnasium's own tasks as paretoscope registers them (built by `mo_gymnasium.make`,
    each checked to give the same episodes reused as new: tests/test_steppers_reuse.py), never
    envs that render nor image observations (minecart-rgb draws its mine sprites rotated once,
    when an env first draws). At most `limit` envs of the id used last are kept.
    """

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._registration: object = None
        self._envs: list[gym.Env] = []

    @staticmethod
    def reusable(spec: EnvSpec) -> bool:
        return (
            spec.id in _SUITE_IDS
            and REGISTRY.get(spec.id).make is None
            and not _is_image(spec.obs_shape)
        )

    def take(self, env_id: str, count: int) -> list[gym.Env]:
        with self._lock:
            if self._registration is not REGISTRY.get(env_id):
                return []
            taken, self._envs = self._envs[:count], self._envs[count:]
            return taken

    def give_back(self, env_id: str, envs: list[gym.Env]) -> None:
        registration = REGISTRY.get(env_id)
        with self._lock:
            stale: list[gym.Env] = []
            if self._registration is not registration:  # another id (or registered anew)
                stale, self._envs = self._envs, []
                self._registration = registration
            room = max(0, self.limit - len(self._envs))
            self._envs += envs[:room]
            stale += envs[room:]
        for env in stale:
            env.close()


_SUITE_IDS = frozenset(task.id for task in TASKS)
_idle_envs = _IdleEnvs()


def _draws_itself(spec: EnvSpec) -> bool:
    """The env draws its own frames: no MuJoCo camera of paretoscope's, and (for a gymnasium
    id) its class lists rgb_array. Fishwood lists only "human": it is not asked to draw."""
    if spec.camera is not None:
        return False
    try:
        return env_id_renders_rgb(spec.id)
    except ParetoscopeError:  # an env gymnasium does not know (a user's `make`): let it try
        return True


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
