"""Seconds per paper figure (issue: at most 3 s a figure): `paretoscope figure KIND` on the
bundled demo for every kind, each as PDF and SVG, in one process after a first warm-up figure
(the first one pays matplotlib's import and font cache: printed apart), each the median of
`--repeat` runs. The training figure reads the run's stored sweeps from a copy of the bundled
results (nothing is written to the bundle). Prints the 1-min load average before and after
(a shared machine: compare figures taken at a similar load).

    python benchmarks/bench_figures.py [--repeat 3] [--assets assets]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from paretoscope.cli import main  # noqa: E402

LIMIT_SECONDS = 3.0


def figures(assets: Path, results: Path) -> dict[str, list[str]]:
    """Each figure's `paretoscope figure` arguments (less --out) on the bundled demo."""
    stored = str(assets / "results")
    run = str(assets / "agents" / "halfcheetah-morvs-run")
    training = [run, "--results", str(results), "--granularity", "20"]
    return {
        "front (HalfCheetah, 4 agents)": ["front", stored, "--env", "MO-HalfCheetah-v2"],
        "front (deep-sea-treasure, known front)": [
            *("front", stored, "--env", "deep-sea-treasure-v0", "--gamma", "1"),
        ],
        "objectives (Hopper-v3, 3 objectives)": [
            *("objectives", stored, "--env", "MO-Hopper-v3", "--agents", "hopper-morvs"),
            *("--width", "double"),
        ],
        "training front (HalfCheetah run)": ["training", *training],
        "training metrics (HalfCheetah run)": ["training", *training, "--view", "metrics"],
        "rtg (HalfCheetah MORvS)": [
            *("rtg", stored, "--env", "MO-HalfCheetah-v2", "--agents", "halfcheetah-morvs"),
            *("--width", "double"),
        ],
    }


def timed(arguments: list[str]) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = quiet
        try:
            code = main(["figure", *arguments])
        finally:
            sys.stdout, sys.stderr = stdout, stderr
    if code != 0:
        raise SystemExit(f"paretoscope figure {' '.join(arguments)} failed ({code})")
    return time.perf_counter() - started


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        results = folder / "results"
        shutil.copytree(args.assets / "results", results)
        cases = figures(args.assets, results)
        first = next(iter(cases.values()))
        warm_up = timed([*first, "--out", str(folder / "warm-up.pdf")])
        print(f"first figure (imports, font cache): {warm_up:.2f} s")
        slowest = 0.0
        for name, arguments in cases.items():
            for fmt in ("pdf", "svg"):
                out = str(folder / f"figure.{fmt}")
                seconds = statistics.median(
                    timed([*arguments, "--out", out]) for _ in range(args.repeat)
                )
                slowest = max(slowest, seconds)
                size = Path(out).stat().st_size / 1024
                print(f"{name:42s} {fmt}: {seconds:6.2f} s  {size:7.1f} KiB")
    print(f"slowest: {slowest:.2f} s (limit {LIMIT_SECONDS:g} s)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if slowest <= LIMIT_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main_())
