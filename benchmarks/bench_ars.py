"""Env steps per second of ARS episodes: direct MuJoCo stepping vs env.step, 1 vs N workers.

    python benchmarks/bench_ars.py [--env MO-HalfCheetah-v2] [--iterations 5]

Prints the median rate over a few ARS iterations (N=32 directions, 500-step episodes) for:
the direct runner in one process, the direct runner over all cores, and `env.step` in one
process. The machine is shared and noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402

from paretoscope.envs import get_spec  # noqa: E402
from paretoscope.settings import ARSConfig  # noqa: E402
from paretoscope.train.ars import (  # noqa: E402
    EpisodePool,
    GymRunner,
    InProcessEpisodes,
    ObservationStats,
    ars_iteration,
    default_workers,
)


def rate(env_id: str, workers: int, iterations: int, through_env: bool = False) -> float:
    """Median env steps/s over `iterations` ARS iterations, learning from zero as in training."""
    spec = get_spec(env_id)
    weights = np.eye(spec.n_obj)[0]
    matrix, stats = np.zeros((spec.act_dim, spec.obs_dim)), ObservationStats.empty(spec.obs_dim)
    rates = []
    with EpisodePool(env_id, workers) as processes:
        # The same algorithm with episodes through env.step, or the fast runner(s).
        pool = InProcessEpisodes(GymRunner(env_id)) if through_env else processes
        for iteration in range(iterations):
            started = time.perf_counter()
            result = ars_iteration(
                matrix, stats, weights, np.random.default_rng([0, iteration]), pool,
                ARSConfig(), spec.horizon,
            )  # fmt: skip
            rates.append(result.env_steps / (time.perf_counter() - started))
            matrix, stats = result.matrix, result.stats
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="MO-HalfCheetah-v2")
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()
    cores = default_workers()
    print(f"{args.env}, ARS N=32, 500-step episodes, median of {args.iterations} iterations")
    single = rate(args.env, 1, args.iterations)
    print(f"  direct mj_step, 1 process     : {single:9.0f} env steps/s")
    if cores > 1:
        parallel = rate(args.env, cores, args.iterations)
        print(
            f"  direct mj_step, {cores} processes   : {parallel:9.0f} env steps/s "
            f"({parallel / single:.2f}x)"
        )
    through_env = rate(args.env, 1, args.iterations, through_env=True)
    print(
        f"  env.step, 1 process           : {through_env:9.0f} env steps/s "
        f"(direct is {single / through_env:.2f}x faster)"
    )


if __name__ == "__main__":
    main()
