"""Episodes per second of a `random` sweep vs a plain sequential `env.step` loop, per env.

For each env (deep-sea-treasure-v0, minecart-v0, mo-lunar-lander-v3 by default), the same
episodes (seed s for each of the grid's preferences: the random agent ignores preferences):
  plain loop       one `mo_gymnasium.make` env in this process; per episode `reset(seed=s)`,
                   then `env.action_space.sample()` (the space seeded once) until the episode
                   is terminated or truncated
  sweep, 1 worker  `sweep(RandomAgent(id), id, ...)` in this process: batching alone
  sweep, N workers the local backend on all cores (or --workers), the worker pool warmed
                   first by a tiny sweep (pool start-up excluded), and once "cold": a fresh
                   pool, start-up included
  ... simulated    the same sweeps with every episode simulated: the random agent declared
                   as reading the preference, so the sweep cannot share one episode per seed
                   among the preferences (the engine's own speed, batching and processes alone)
No results store, so nothing is reused. Target (the issue): N workers / plain loop >= 1.5 on 2
cores. Prints medians of --repeats runs (the lower middle one for an even count; cold: one run)
with the 1-min load at the start of the runs and the load average before and after each env:
the machine is shared, so compare figures measured at a similar load.

    python benchmarks/bench_envs.py [--envs ID ...] [--episodes N] [--repeats 3]
        [--granularity 3] [--batch-size 64] [--workers N] [--no-single-worker]
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import mo_gymnasium  # noqa: E402

from paretoscope.agents.random_agent import RandomAgent  # noqa: E402
from paretoscope.envs import get_spec  # noqa: E402
from paretoscope.evaluate import shutdown_worker_pools, sweep  # noqa: E402
from paretoscope.metrics import preference_grid  # noqa: E402
from paretoscope.settings import SweepSettings  # noqa: E402

ENV_IDS = ("deep-sea-treasure-v0", "minecart-v0", "mo-lunar-lander-v3")
# Mean random episode: ~9, ~160 and ~95 steps; about 1 s of the plain loop, several of a sweep.
DEFAULT_EPISODES = {"deep-sea-treasure-v0": 20_000, "minecart-v0": 300, "mo-lunar-lander-v3": 1_000}
TARGET = 1.5


@dataclass(frozen=True)
class Rate:
    """One timed run: episodes and env steps done in `seconds`, the 1-min load when it began."""

    episodes: int
    steps: int
    seconds: float
    load: float

    @property
    def episodes_per_second(self) -> float:
        return self.episodes / self.seconds

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


def plain_loop(env_id: str, seeds: list[int]) -> Rate:
    """One env in this process, one episode per seed, uniform actions from the action space."""
    env = mo_gymnasium.make(env_id)
    env.action_space.seed(seeds[0])
    steps = 0
    load = os.getloadavg()[0]
    started = time.perf_counter()
    for seed in seeds:
        env.reset(seed=seed)
        while True:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            steps += 1
            if terminated or truncated:
                break
    seconds = time.perf_counter() - started
    env.close()
    return Rate(len(seeds), steps, seconds, load)


def sighted_random(env_id: str) -> RandomAgent:
    """The random agent declaring that it reads the preference (its draws are unchanged): a
    sweep then simulates every (preference, seed) episode instead of one per seed."""
    agent = RandomAgent(env_id)
    agent.preference_blind = False  # type: ignore[misc]
    return agent


def timed_sweep(
    env_id: str,
    granularity: int,
    seeds: list[int],
    workers: int | None,
    batch_size: int,
    every_episode: bool = False,
) -> Rate:
    """`sweep` of the random agent over the grid x `seeds`, no store."""
    agent = sighted_random(env_id) if every_episode else RandomAgent(env_id)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    settings = SweepSettings(
        granularity=granularity, seeds=seeds, backend="local", workers=workers,
        batch_size=batch_size,
    )  # fmt: skip
    table = sweep(agent, env_id, settings, progress=False, store=None)
    seconds = time.perf_counter() - started
    return Rate(len(table), int(table["length"].sum()), seconds, load)


def warm_pool(env_id: str, workers: int) -> int:
    """Start the pool's workers and their imports with a tiny sweep; its episode count."""
    agent = RandomAgent(env_id)
    settings = SweepSettings(granularity=1, seeds=range(2 * workers), horizon=5,
                             workers=workers, batch_size=1)  # fmt: skip
    table = sweep(agent, env_id, settings, progress=False)
    return len(table)


def median_rate(run: Callable[[], Rate], repeats: int) -> tuple[Rate, list[Rate]]:
    """The run of median episodes/s among `repeats` runs, and all runs."""
    runs = [run() for _ in range(repeats)]
    ordered = sorted(runs, key=lambda rate: rate.episodes_per_second)
    return ordered[(len(ordered) - 1) // 2], runs


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return (
        f"load average {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min; this benchmark's own "
        f"processes count too), {os.cpu_count()} cores"
    )


def row(label: str, rate: Rate, baseline: Rate | None, runs: list[Rate] | None = None) -> str:
    """One printed line: episodes/s, env steps/s, mean length, ratio to the plain loop, the
    load at the start of the runs, the median run's seconds, and each run's episodes/s."""
    text = (
        f"  {label:<34} {rate.episodes_per_second:8.1f} episodes/s {rate.steps_per_second:7.0f}"
        f" env steps/s  mean length {rate.steps / rate.episodes:5.1f}"
    )
    if baseline is not None:
        text += f"  ratio {rate.episodes_per_second / baseline.episodes_per_second:5.2f}"
    loads = [run.load for run in runs or [rate]]
    text += f"  load {min(loads):.1f}" + (f"-{max(loads):.1f}" if len(loads) > 1 else "")
    text += f"  {rate.seconds:.1f} s"
    if runs is not None and len(runs) > 1:
        text += "  (runs: " + ", ".join(f"{r.episodes_per_second:.0f}" for r in runs) + ")"
    return text


def bench_env(
    env_id: str,
    episodes: int,
    repeats: int,
    granularity: int,
    batch_size: int,
    workers: int,
    one: bool,
) -> float:
    """Print one env's figures; return the warm `workers` / plain-loop ratio."""
    spec = get_spec(env_id)
    preferences = len(preference_grid(spec.n_obj, granularity))
    seeds = list(range(math.ceil(episodes / preferences)))
    same_episodes = [seed for _ in range(preferences) for seed in seeds]
    print(
        f"\n{env_id}: {len(same_episodes)} episodes ({preferences} preferences x {len(seeds)} "
        f"seeds), horizon {spec.horizon}, batch size {batch_size}, median of {repeats}"
    )
    print(f"  before: {load_line()}")
    baseline, baseline_runs = median_rate(lambda: plain_loop(env_id, same_episodes), repeats)
    print(row("plain env.step loop", baseline, None, baseline_runs))
    if one:
        for every_episode, label in ((False, ""), (True, ", simulated")):
            single, single_runs = median_rate(
                lambda e=every_episode: timed_sweep(env_id, granularity, seeds, 1, batch_size, e),
                repeats,
            )
            print(row(f"sweep, 1 worker{label}", single, baseline, single_runs))
    shutdown_worker_pools()
    cold = timed_sweep(env_id, granularity, seeds, workers, batch_size)
    warm_episodes = warm_pool(env_id, workers)
    warm, warm_runs = median_rate(
        lambda: timed_sweep(env_id, granularity, seeds, workers, batch_size), repeats
    )
    label = f"sweep, {workers} workers, pool warm"
    print(row(label, warm, baseline, warm_runs) + f"  [target >= {TARGET}]")
    simulated, simulated_runs = median_rate(
        lambda: timed_sweep(env_id, granularity, seeds, workers, batch_size, True), repeats
    )
    print(row(f"sweep, {workers} workers, warm, simulated", simulated, baseline, simulated_runs))
    print(row(f"sweep, {workers} workers, cold (1 run)", cold, baseline))
    print(
        f"  (warm: the pool was started by a {warm_episodes}-episode, 5-step sweep before "
        f"timing; cold: a fresh pool, its {workers} interpreters' start-up included)"
    )
    print(f"  after:  {load_line()}")
    return warm.episodes_per_second / baseline.episodes_per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", default=list(ENV_IDS))
    parser.add_argument(
        "--episodes", type=int, default=None, help="episodes per measurement (default: per env)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--granularity", type=int, default=3, help="preference grid granularity")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--workers", type=int, default=None, help="sweep processes (default: all cores)"
    )
    parser.add_argument("--no-single-worker", action="store_true", help="skip the workers=1 sweep")
    args = parser.parse_args()
    # Box2D and MO-Gymnasium warn about float32 bounds at every make: noise, not results.
    warnings.filterwarnings("ignore", category=UserWarning)
    workers = args.workers or os.cpu_count() or 1
    print(f"random agent: sweep vs plain env.step loop; start: {load_line()}")
    ratios = {}
    for env_id in args.envs:
        episodes = args.episodes or DEFAULT_EPISODES.get(env_id, 1_000)
        ratios[env_id] = bench_env(
            env_id, episodes, args.repeats, args.granularity, args.batch_size, workers,
            not args.no_single_worker,
        )  # fmt: skip
    shutdown_worker_pools()
    print(f"\n{workers}-worker sweep (pool warm) / plain loop, target >= {TARGET}:")
    for env_id, ratio in ratios.items():
        print(f"  {env_id:<24} {ratio:5.2f}  {'meets' if ratio >= TARGET else 'misses'}")
    print(f"end: {load_line()}")


if __name__ == "__main__":
    main()
