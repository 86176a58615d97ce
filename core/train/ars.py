"""Augmented Random Search (ARS V2-t, Mania et al. 2018) for one linear policy.

The policy is ``a = clip(M (o − μ) / σ)``: a matrix M (act_dim, obs_dim) started at zero and a
running mean μ / std σ of every observation seen in training (frozen within an iteration,
updated after it). One iteration:

1. draw N directions δ_k ~ N(0, I) of M's shape;
2. run one episode with M + ν δ_k and one with M − ν δ_k (same reset seed: common random
   numbers), scoring each by the scalarised return w·R minus ``shift`` per step taken (with
   ``caps``, R sums min(r_t, caps) instead of r_t: see `ars_iteration`);
3. keep the b directions with the largest max(r⁺, r⁻), and let σ_R be the std of those 2b
   returns;
4. M ← M + α / (b σ_R) Σ_top (r⁺_k − r⁻_k) δ_k; merge the iteration's observations into μ, σ.

Episodes run through an `EpisodeRunner`: D4MORL tasks step the MuJoCo model directly with the
environment's own formulas (`D4MORLPhysics`), everything else goes through `env.step`. The ±
episodes of one iteration are spread over worker processes; their results are merged in task
order, so an iteration's outcome does not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import mujoco
import numpy as np
from gymnasium.utils import seeding

from paretoscope.agents.policy_set import FloatArray, linear_actions
from paretoscope.envs import get_spec, make_env
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import ARSConfig

# Observation coordinates whose std falls below this are not scaled (std taken as 1), so a
# coordinate that hardly moved in training cannot blow up when it moves later.
MIN_OBSERVATION_STD = 1e-6


@dataclass(frozen=True)
class ObservationStats:
    """Count, mean and sum of squared deviations (M2) per observation coordinate."""

    count: int
    mean: FloatArray
    m2: FloatArray

    @classmethod
    def empty(cls, obs_dim: int) -> ObservationStats:
        return cls(0, np.zeros(obs_dim), np.zeros(obs_dim))

    @classmethod
    def of(cls, observations: FloatArray) -> ObservationStats:
        """The statistics of a (T, obs_dim) block of observations."""
        count = int(observations.shape[0])
        if count == 0:
            return cls.empty(observations.shape[1])
        mean = observations.mean(axis=0)
        return cls(count, mean, ((observations - mean) ** 2).sum(axis=0))

    def merged(self, other: ObservationStats) -> ObservationStats:
        """Statistics of both samples together (Chan et al.'s parallel update)."""
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        total = self.count + other.count
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.count / total)
        m2 = self.m2 + other.m2 + delta**2 * (self.count * other.count / total)
        return ObservationStats(total, mean, m2)

    def normaliser(self) -> tuple[FloatArray, FloatArray]:
        """(mean, std) to normalise with: (0, 1) before two observations have been seen."""
        if self.count < 2:
            return np.zeros_like(self.mean), np.ones_like(self.mean)
        std = np.sqrt(self.m2 / self.count)
        return self.mean.copy(), np.where(std < MIN_OBSERVATION_STD, 1.0, std)


@dataclass
class Episode:
    """One episode of a linear policy: its return vector, length and observation statistics."""

    returns: FloatArray
    length: int
    stats: ObservationStats


class EpisodeRunner(Protocol):
    """Runs one episode of ``clip(M (o − mean) / std)`` from the reset seeded by `seed`; with
    `caps` (one per objective, inf: none) the returns sum min(r_t, caps) instead of r_t."""

    def run(
        self,
        matrix: FloatArray,
        obs_mean: FloatArray,
        obs_std: FloatArray,
        seed: int,
        horizon: int,
        caps: FloatArray | None = None,
    ) -> Episode: ...


class MujocoRunner:
    """A D4MORL task stepped directly: `mj_step(model, data, nstep=frame_skip)`.

    Uses the environment's own pieces (`D4MORLPhysics`: reset noise, action clipping,
    termination, observation and reward formulas), so an episode is the one `make_env(env_id)`
    would produce from ``reset(seed=seed)``; rewards are evaluated once per episode on the
    stacked states, which is where the speed comes from.
    """

    def __init__(self, env_id: str) -> None:
        from paretoscope.envs.d4morl import formulas, load_physics
        from paretoscope.envs.d4morl.physics import instability_count

        self.physics = load_physics(env_id)
        self.data = self.physics.make_data()
        self._instability_count = instability_count
        # Ant ends an episode when MuJoCo had to reset a diverged state (as `step_data` does).
        self._end_on_instability = self.physics.task.terminated is formulas.not_finite_terminated
        self.spec = self.physics.spec

    def run(
        self,
        matrix: FloatArray,
        obs_mean: FloatArray,
        obs_std: FloatArray,
        seed: int,
        horizon: int,
        caps: FloatArray | None = None,
    ) -> Episode:
        physics, data, model = self.physics, self.data, self.physics.model
        spec = self.spec
        physics.reset_data(data, seeding.np_random(seed)[0])
        qpos = np.empty((horizon + 1, model.nq))
        actions = np.empty((horizon, spec.act_dim))
        observations = np.empty((horizon, spec.obs_dim))
        qpos[0] = data.qpos
        observation = physics.observation(data.qpos.copy(), data.qvel.copy())
        matrices, means, stds = matrix[None], obs_mean[None], obs_std[None]
        low, high, frame_skip = physics.action_low, physics.action_high, physics.frame_skip
        length = 0
        for step in range(horizon):
            observations[step] = observation
            action = linear_actions(matrices, means, stds, observation[None], low, high)[0]
            actions[step] = action
            unstable_before = self._instability_count(data) if self._end_on_instability else 0
            data.ctrl[:] = action
            mujoco.mj_step(model, data, nstep=frame_skip)
            position, velocity = data.qpos.copy(), data.qvel.copy()
            qpos[step + 1] = position
            length = step + 1
            observation = physics.observation(position, velocity)
            if bool(physics.terminated(position, velocity)) or (
                self._end_on_instability and self._instability_count(data) != unstable_before
            ):
                break
        rewards = physics.rewards(qpos[:length], qpos[1 : length + 1], actions[:length])
        if caps is not None:
            rewards = np.minimum(rewards, caps)
        return Episode(rewards.sum(axis=0), length, ObservationStats.of(observations[:length]))


class GymRunner:
    """Any registered environment through `make_env(env_id)` and `env.step` (slower)."""

    def __init__(self, env_id: str) -> None:
        self.spec = get_spec(env_id)
        self.env = make_env(env_id)

    def run(
        self,
        matrix: FloatArray,
        obs_mean: FloatArray,
        obs_std: FloatArray,
        seed: int,
        horizon: int,
        caps: FloatArray | None = None,
    ) -> Episode:
        spec = self.spec
        low, high = np.asarray(spec.action_low), np.asarray(spec.action_high)
        observation, _ = self.env.reset(seed=seed)
        observations = np.empty((horizon, spec.obs_dim))
        returns = np.zeros(spec.n_obj)
        length = 0
        for step in range(horizon):
            observation = np.asarray(observation, dtype=np.float64)
            observations[step] = observation
            action = linear_actions(
                matrix[None], obs_mean[None], obs_std[None], observation[None], low, high
            )[0]
            observation, reward, terminated, truncated, _ = self.env.step(action)
            step_reward = np.asarray(reward, dtype=np.float64)
            returns += step_reward if caps is None else np.minimum(step_reward, caps)
            length = step + 1
            if terminated or truncated:
                break
        return Episode(returns, length, ObservationStats.of(observations[:length]))


def make_runner(env_id: str) -> EpisodeRunner:
    """The fastest runner for `env_id`: direct MuJoCo for D4MORL tasks, `env.step` otherwise."""
    if get_spec(env_id).family == "d4morl":
        return MujocoRunner(env_id)
    return GymRunner(env_id)


# --- spreading episodes over processes -----------------------------------------------------------

# (matrix, observation mean, observation std, reset seed, horizon, per-step reward caps or None)
EpisodeTask = tuple[FloatArray, FloatArray, FloatArray, int, int, FloatArray | None]

_worker_runner: EpisodeRunner | None = None


def _start_worker(env_id: str) -> None:
    """Worker initialiser: build the runner once; leave Ctrl-C to the parent process."""
    global _worker_runner
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_runner = make_runner(env_id)


def _run_in_worker(task: EpisodeTask) -> Episode:
    assert _worker_runner is not None, "worker was not initialised"
    return _worker_runner.run(*task)


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _process_context() -> Any:
    """Fork where the platform has it: workers start at once and a caller's script needs no
    ``if __name__ == "__main__"`` guard; spawn elsewhere."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class EpisodeBatch(Protocol):
    """Anything that runs a list of episode tasks and returns their episodes in task order."""

    def run(self, tasks: Sequence[EpisodeTask]) -> list[Episode]: ...


class InProcessEpisodes:
    """Episode tasks run one after another by `runner`, in this process."""

    def __init__(self, runner: EpisodeRunner) -> None:
        self.runner = runner

    def run(self, tasks: Sequence[EpisodeTask]) -> list[Episode]:
        return [self.runner.run(*task) for task in tasks]


class EpisodePool:
    """Runs episode tasks in order, in this process (1 worker) or in a pool of processes."""

    def __init__(self, env_id: str, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ParetoscopeError(f"workers must be at least 1, got {workers}")
        self.env_id = env_id
        self._runner: EpisodeRunner | None = None
        self._pool: Any = None
        if self.workers == 1:
            self._runner = make_runner(env_id)
        else:
            self._pool = _process_context().Pool(self.workers, _start_worker, (env_id,))

    def run(self, tasks: Sequence[EpisodeTask]) -> list[Episode]:
        """One `Episode` per task, in task order."""
        if self._runner is not None:
            return [self._runner.run(*task) for task in tasks]
        return list(self._pool.map(_run_in_worker, tasks, chunksize=1))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> EpisodePool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# --- the algorithm ---------------------------------------------------------------------------


@dataclass
class IterationResult:
    """What one ARS iteration produced."""

    matrix: FloatArray
    stats: ObservationStats
    mean_return: float  # mean scalarised return w·R (no shift) of the 2N episodes
    env_steps: int


def ars_iteration(
    matrix: FloatArray,
    stats: ObservationStats,
    weights: FloatArray,
    rng: np.random.Generator,
    pool: EpisodeBatch,
    config: ARSConfig,
    horizon: int,
    shift: float = 0.0,
    caps: FloatArray | None = None,
) -> IterationResult:
    """One ARS V2-t update of `matrix` for the scalarised reward weights·r (minus `shift`/step).

    `caps` (one per objective, inf where none) trains on weights·min(r_t, caps) instead: a
    capped objective stops paying above its cap, so e.g. a run reward capped at a target speed
    asks for that speed at the least cost of the other objectives. `mean_return` is then the
    capped one too.
    """
    directions = rng.standard_normal((config.directions, *matrix.shape))
    seeds = rng.integers(0, 2**31 - 1, size=config.directions)
    obs_mean, obs_std = stats.normaliser()
    tasks: list[EpisodeTask] = []
    for sign in (1.0, -1.0):
        for direction, seed in zip(directions, seeds, strict=True):
            perturbed = matrix + sign * config.noise * direction
            tasks.append((perturbed, obs_mean, obs_std, int(seed), horizon, caps))
    episodes = pool.run(tasks)
    scalarised = np.array([float(weights @ episode.returns) for episode in episodes])
    lengths = np.array([episode.length for episode in episodes], dtype=np.float64)
    scores = scalarised - shift * lengths
    plus, minus = scores[: config.directions], scores[config.directions :]
    top = np.argsort(-np.maximum(plus, minus), kind="stable")[: config.top_directions]
    spread = float(np.std(np.concatenate([plus[top], minus[top]])))
    spread = spread if spread > 0 else 1.0
    step = np.tensordot(plus[top] - minus[top], directions[top], axes=1)
    new_matrix = matrix + config.step_size / (config.top_directions * spread) * step
    new_stats = stats
    for episode in episodes:
        new_stats = new_stats.merged(episode.stats)
    return IterationResult(new_matrix, new_stats, float(scalarised.mean()), int(lengths.sum()))


def evaluate_policy(
    matrix: FloatArray,
    stats: ObservationStats,
    seeds: Sequence[int],
    pool: EpisodeBatch,
    horizon: int,
    caps: FloatArray | None = None,
) -> FloatArray:
    """Return vectors (E, n_obj) of the noise-free policy, one episode per seed (with `caps`:
    of the rewards capped per step, as a member on its own reward trains)."""
    obs_mean, obs_std = stats.normaliser()
    tasks: list[EpisodeTask] = [
        (matrix, obs_mean, obs_std, int(seed), horizon, caps) for seed in seeds
    ]
    return np.stack([episode.returns for episode in pool.run(tasks)])
