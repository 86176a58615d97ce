"""Evaluation speed on MO-HalfCheetah-v2 with a default-size MORvS (3 x 512) on CPU.

Prints ratios measured in the same run (the issue's targets in brackets):
  batched / raw physics   single-process batched rollout of 64 rows vs raw `mj_step` for the
                          same number of env steps, both on 1 thread and both on 2
                          threads (MuJoCo releases the GIL)                         [>= 0.5]
  batched / sequential    vs the evaluator common in MORL code: one preference at a time, one
                          policy call per env step through `env.step`, single-threaded;
                          the batched rollout on 1 and on 2 physics threads          [>= 5]
  2 workers / 1 worker    a sweep of 2 x 64 rows on 2 processes vs 1, one thread each [>= 1.6]
Torch runs on one thread throughout.

    python benchmarks/bench_evaluate.py [--rows 64] [--horizon 500] [--sequential-episodes 4]
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from paretoscope.agents.conditioned import create_agent  # noqa: E402
from paretoscope.agents.target_model import published_target_model  # noqa: E402
from paretoscope.envs import make_env  # noqa: E402
from paretoscope.envs.d4morl import load_physics  # noqa: E402
from paretoscope.evaluate import sweep  # noqa: E402
from paretoscope.metrics import preference_grid  # noqa: E402
from paretoscope.rollout import rollout_batch  # noqa: E402
from paretoscope.settings import SweepSettings  # noqa: E402

ENV_ID = "MO-HalfCheetah-v2"


def raw_physics_rate(steps: int, threads: int = 1) -> float:
    """Env steps per second of `mj_step` alone (frame_skip substeps each), random controls."""
    physics = load_physics(ENV_ID)
    controls = np.random.default_rng(0).uniform(-1, 1, (steps, physics.model.nu))

    def run(share: np.ndarray) -> None:
        data = physics.make_data()
        for control in share:
            data.ctrl[:] = control
            mujoco.mj_step(physics.model, data, nstep=physics.frame_skip)

    shares = np.array_split(controls, threads)
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, shares))
    return steps / (time.perf_counter() - started)


def sequential_rate(agent, preferences: np.ndarray, horizon: int) -> float:
    """One episode at a time through env.step, one agent call (batch of 1) per step."""
    steps = 0
    started = time.perf_counter()
    for preference in preferences:
        env = make_env(ENV_ID)
        observation, _ = env.reset(seed=0)
        agent.reset(1)
        target = agent.initial_target(preference[None])
        for _ in range(horizon):
            action = agent.act(observation[None], preference[None], target)[0]
            observation, reward, terminated, truncated, _ = env.step(action)
            target = target - reward
            steps += 1
            if terminated or truncated:
                break
        env.close()
    return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--horizon", type=int, default=500)
    parser.add_argument("--sequential-episodes", type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(1)  # one core per process, as the sweep's workers run

    agent = create_agent("morvs", ENV_ID, target_model=published_target_model(ENV_ID), seed=0)
    preferences = preference_grid(2, args.rows - 1)[: args.rows]
    seeds = list(range(args.rows))

    batched, raw = {}, {}
    for threads in (1, 2):
        started = time.perf_counter()
        result = rollout_batch(
            agent, ENV_ID, preferences, seeds, horizon=args.horizon, threads=threads
        )
        batched_steps = int(result.lengths.sum())
        batched[threads] = batched_steps / (time.perf_counter() - started)
        raw[threads] = raw_physics_rate(batched_steps, threads)
    sequential = sequential_rate(agent, preferences[: args.sequential_episodes], args.horizon)

    two_batches = preference_grid(2, 2 * args.rows - 1)
    # Start the worker processes first: the figure is throughput, not interpreter start-up.
    warm = SweepSettings(preferences=two_batches[:2], horizon=5, workers=2, batch_size=1)
    sweep(agent, ENV_ID, warm, progress=False)
    timings = {}
    for workers in (1, 2):
        started = time.perf_counter()
        settings = SweepSettings(
            preferences=two_batches, episodes=1, horizon=args.horizon, workers=workers,
            batch_size=args.rows,
        )  # fmt: skip
        sweep(agent, ENV_ID, settings, progress=False)
        timings[workers] = time.perf_counter() - started

    print(f"MO-HalfCheetah-v2, MORvS 3x512 on CPU, {args.rows} rows x {args.horizon} steps")
    for threads in (1, 2):
        print(f"  raw mj_step, {threads} thread(s)          {raw[threads]:10.0f} env steps/s")
        print(f"  batched rollout, {threads} thread(s)      {batched[threads]:10.0f} env steps/s")
    print(f"  sequential env.step evaluator   {sequential:10.0f} env steps/s")
    print(f"  sweep of {2 * args.rows} episodes: 1 worker {timings[1]:.2f} s, 2 workers "
          f"{timings[2]:.2f} s (worker processes already started)")  # fmt: skip
    for threads in (1, 2):
        print(
            f"ratio batched / raw physics, {threads} thread(s)   "
            f"{batched[threads] / raw[threads]:.2f}  (target >= 0.5)"
        )
    for threads in (1, 2):
        print(
            f"ratio batched ({threads} thread(s)) / sequential "
            f"{batched[threads] / sequential:.2f}  (target >= 5)"
        )
    print(f"ratio 2 workers / 1 worker       {timings[1] / timings[2]:.2f}  (target >= 1.6)")


if __name__ == "__main__":
    main()
