"""Time the Pareto metrics on 10,000 points in 2-D and 3-D and print the medians.

The points are hard on purpose: half lie on the positive part of the unit sphere (all mutually
non-dominated), a quarter just inside it and a quarter anywhere inside, so the front has
thousands of points. Target (the issue): non_dominated and hypervolume under 50 ms each.

    python benchmarks/bench_metrics.py [--points 10000] [--repeats 21] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from paretoscope.metrics import front_summary, hypervolume, non_dominated, preference_grid, sparsity

TARGET_SECONDS = 0.050


def sphere_and_inside(count: int, n_obj: int, seed: int) -> np.ndarray:
    """`count` points in the positive orthant: half on the unit sphere, half inside it."""
    rng = np.random.default_rng(seed)
    directions = np.abs(rng.normal(size=(count, n_obj)))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radius = np.ones(count)
    near, inside = count // 2, count // 2 + count // 4
    radius[near:inside] = rng.uniform(0.9, 1.0, size=inside - near)
    radius[inside:] = rng.uniform(0.0, 1.0, size=count - inside)
    return directions * radius[:, None]


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    """Median wall time of `call` after one warm-up run."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    target_ms = TARGET_SECONDS * 1e3
    print(f"{args.points} points, median of {args.repeats} runs, target {target_ms:.0f} ms")
    print(f"{'objectives':>10}  {'front':>6}  {'metric':<32} {'median ms':>10}  verdict")
    for n_obj in (2, 3):
        points = sphere_and_inside(args.points, n_obj, args.seed)
        reference = np.zeros(n_obj)
        weights = preference_grid(n_obj, 10)
        front_size = int(non_dominated(points).sum())
        cases: list[tuple[str, Callable[[], object], bool]] = [
            ("non_dominated", partial(non_dominated, points), True),
            ("hypervolume", partial(hypervolume, points, reference), True),
            ("non_dominated(tolerance=0.05)", partial(non_dominated, points, 0.05), False),
            ("sparsity", partial(sparsity, points), False),
            ("front_summary (with EUM)", partial(front_summary, points, reference, weights), False),
        ]
        for name, call, has_target in cases:
            seconds = median_seconds(call, args.repeats)
            verdict = ("ok" if seconds < TARGET_SECONDS else "OVER TARGET") if has_target else ""
            print(f"{n_obj:>10}  {front_size:>6}  {name:<32} {seconds * 1e3:>10.2f}  {verdict}")


if __name__ == "__main__":
    main()
