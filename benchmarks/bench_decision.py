"""Time the Many objectives page's computations and the bootstrapped intervals; print medians.

  decision_marks    high trade-off points, pseudo-weights and the compromise of one front
  aspiration_pick   the ASF pick for an aspiration halfway between the front's nadir and ideal
on --points points on the positive part of the unit sphere (all mutually non-dominated, so the
front is every point: the hard case) with 2, 3, 4 and 6 objectives; and

  bootstrap_front_metrics   --resamples resamples of a 2-objective sweep of 66 preferences x 5
                            seeds (the hypervolume and expected utility intervals on Compare)

Medians of --repeats runs after one warm-up run, with the 1-min load average before and after
(the machine is shared: compare figures taken at a similar load). Targets (were timed unit
tests): decision_marks on 2,000 x 6 under 100 ms, the bootstrap under 1 s.

    python benchmarks/bench_decision.py [--points 2000] [--repeats 11] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.bench_metrics import median_seconds  # noqa: E402
from paretoscope.decision import aspiration_pick, decision_marks  # noqa: E402
from paretoscope.metrics import bootstrap_front_metrics, preference_grid  # noqa: E402

DECISION_TARGET_SECONDS = 0.100  # decision_marks, 2,000 points, 6 objectives
BOOTSTRAP_TARGET_SECONDS = 1.0  # 1,000 resamples of 66 preferences x 5 seeds
OBJECTIVES = (2, 3, 4, 6)


def on_sphere(count: int, n_obj: int, seed: int) -> np.ndarray:
    """`count` points on the positive part of the unit sphere: none dominates another."""
    rng = np.random.default_rng(seed)
    points = np.abs(rng.normal(size=(count, n_obj)))
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def seeded_sweep(
    seeds: int, granularity: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per (preference, seed) of a 2-objective sweep: returns near 100 x preference
    plus seed noise (the unit tests' sweep)."""
    grid = preference_grid(2, granularity)
    rng = np.random.default_rng(seed)
    preferences = np.repeat(grid, seeds, axis=0)
    seed_column = np.tile(np.arange(seeds), len(grid))
    returns = 100 * preferences + 20 + rng.normal(0.0, 5.0, size=preferences.shape)
    return preferences, returns, seed_column


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    print(f"load average before (1, 5, 15 min): {_load()}")
    print(f"median of {args.repeats} runs after a warm-up run")
    print(f"{'computation':<26} {'points':>7} {'objectives':>10} {'median ms':>10}  verdict")
    for n_obj in OBJECTIVES:
        points = on_sphere(args.points, n_obj, args.seed)
        aspiration = 0.5 * (points.max(axis=0) + points.min(axis=0))
        cases: list[tuple[str, Callable[[], object], float | None]] = [
            (
                "decision_marks",
                partial(decision_marks, points),
                DECISION_TARGET_SECONDS if n_obj == 6 and args.points == 2000 else None,
            ),
            ("aspiration_pick", partial(aspiration_pick, points, aspiration), None),
        ]
        for name, call, target in cases:
            seconds = median_seconds(call, args.repeats)
            verdict = "" if target is None else ("ok" if seconds < target else "OVER TARGET")
            print(f"{name:<26} {len(points):>7} {n_obj:>10} {seconds * 1e3:>10.2f}  {verdict}")

    preferences, returns, seeds = seeded_sweep(5, 65, args.seed)  # 66 preferences x 5 seeds
    bootstrap = partial(
        bootstrap_front_metrics,
        preferences,
        returns,
        seeds,
        (0.0, 0.0),
        resamples=args.resamples,
    )
    seconds = median_seconds(bootstrap, args.repeats)
    target = BOOTSTRAP_TARGET_SECONDS if args.resamples == 1000 else None
    verdict = "" if target is None else ("ok" if seconds < target else "OVER TARGET")
    name = f"bootstrap ({args.resamples} resamples)"
    print(f"{name:<26} {len(returns):>7} {2:>10} {seconds * 1e3:>10.2f}  {verdict}")
    print(f"load average after (1, 5, 15 min): {_load()}")


if __name__ == "__main__":
    main()
