"""Time what the Explore page pays for its front at every rerun and print the medians.

Each rerun builds the front (`paretoscope.figures.front.front_figure`) and the front
chart's arguments (`paretoscope.dashboard.widgets.front_chart.chart_arguments`: the figure as
JSON, its digest, the marker traces). The defaults are the bundled demo's shapes: a
21-preference sweep and a dataset cloud of 400 points; ``--grid`` adds target mode's 25 x 25
clickable grid. The figure tells whether caching the front's static part is worth it for a room
of viewers (issue 20).

    python benchmarks/bench_front_figure.py [--points 21] [--cloud 400] [--grid] [--repeats 21]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from paretoscope.dashboard.widgets.front_chart import chart_arguments
from paretoscope.figures.front import FrontSeries, Marker, front_figure, target_grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=21, help="preferences in the sweep")
    parser.add_argument("--cloud", type=int, default=400, help="dataset trajectories drawn")
    parser.add_argument("--grid", action="store_true", help="add target mode's clickable grid")
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    weights = np.linspace(0.0, 1.0, args.points)
    series = FrontSeries(
        "bench",
        rng.uniform(0.0, 3000.0, size=(args.points, 2)),
        np.column_stack([weights, 1.0 - weights]),
        seeds=np.arange(args.points),
        env_id="MO-HalfCheetah-v2",
    )
    cloud = rng.uniform(0.0, 3000.0, size=(args.cloud, 2))
    grid = target_grid([0.0, 0.0], [3000.0, 3000.0]) if args.grid else None

    build_times, argument_times = [], []
    size = 0
    for repeat in range(args.repeats + 1):  # the first run warms plotly's validators up
        started = time.perf_counter()
        figure = front_figure(
            ["run", "energy"],
            [series],
            dataset_returns=cloud,
            reference_point=[0.0, 0.0],
            current=Marker(rng.uniform(0.0, 3000.0, size=2), "this rollout"),
            target_grid=grid,
        )
        built = time.perf_counter()
        arguments = chart_arguments(figure)
        done = time.perf_counter()
        if repeat:
            build_times.append(built - started)
            argument_times.append(done - built)
        size = len(arguments["front"])

    build = statistics.median(build_times) * 1e3
    serialise = statistics.median(argument_times) * 1e3
    print(
        f"sweep {args.points} points, cloud {args.cloud}, grid {'on' if args.grid else 'off'}; "
        f"medians of {args.repeats}"
    )
    print(f"front_figure: {build:.1f} ms; chart_arguments: {serialise:.1f} ms")
    print(f"per rerun: {build + serialise:.1f} ms; front JSON sent: {size / 1000:.1f} kB")


if __name__ == "__main__":
    main()
