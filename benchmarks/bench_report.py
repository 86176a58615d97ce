"""Build the bundled HalfCheetah report (4 agents, 3 videos each: extremes and knee) and print
its size and build time (issue 54: at most 15 MB, built in at most 20 s).

The time is the whole `paretoscope report` (reading the store, loading the agents, measuring,
recording and encoding the twelve episodes, writing the page), in this process.

    python benchmarks/bench_report.py [--out /tmp/halfcheetah-report.html]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from paretoscope.catalog import bundled_assets_dir
from paretoscope.cli import main as cli

AGENTS = "halfcheetah-behaviour,halfcheetah-morvs,halfcheetah-bc,halfcheetah-modt"
SIZE_LIMIT_MB = 15.0
TIME_LIMIT_S = 20.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = args.out or Path(folder) / "report.html"
        started = time.perf_counter()
        command = ["report", str(bundled_assets_dir()), "--env", "MO-HalfCheetah-v2"]
        cli([*command, "--agents", AGENTS, "--out", str(out), "--quiet"])
        seconds = time.perf_counter() - started
        size_mb = out.stat().st_size / 1e6
    print(f"report size   {size_mb:6.2f} MB  (limit {SIZE_LIMIT_MB:g} MB)")
    print(f"build time    {seconds:6.1f} s   (limit {TIME_LIMIT_S:g} s)")


if __name__ == "__main__":
    main()
