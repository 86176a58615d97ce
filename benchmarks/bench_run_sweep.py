"""Sweeping a whole training run: `paretoscope evaluate RUN` on a 10-snapshot HalfCheetah run.

The run is made first (not timed) by `paretoscope train morvs --snapshot-every`: PEDA's default
MORvS (3 x 512) trained on the bundled HalfCheetah expert dataset, a snapshot every
--steps/10 steps. Then the command a user types is timed as a fresh process, end to end
(interpreter start, reading the run, loading each snapshot, the worker processes, every
episode, the metrics):

    paretoscope evaluate RUN --env MO-HalfCheetah-v2 --granularity 10 --episodes 2 --out NEW

= 10 snapshots x 11 preferences x 2 seeds = 220 episodes of 500 steps, each time into a new
results folder (nothing stored), then once more into the same folder (everything stored: the
resumed case). For comparison, what the same took before runs existed: one
`paretoscope evaluate SNAPSHOT` command per snapshot, in turn (--baseline). Medians of
--repeats, with the 1-min load average before and after (the machine is shared: compare figures
taken at a similar load). Target: <= 60 s on 2 cores.

    python benchmarks/bench_run_sweep.py [--repeats 3] [--steps 1000] [--run DIR] [--baseline]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATASET = REPO / "assets" / "datasets" / "halfcheetah-expert-uniform"
ENV_ID = "MO-HalfCheetah-v2"
SNAPSHOTS = 10
TARGET_SECONDS = 60.0


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    result = subprocess.run(
        [sys.executable, "-m", "paretoscope.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    if result.returncode != 0:
        raise SystemExit(f"paretoscope {' '.join(args)} failed:\n{result.stderr}")
    return result


def make_run(folder: Path, steps: int) -> None:
    every = max(1, steps // SNAPSHOTS)
    cli(
        "train", "morvs", "--data", str(DATASET), "--out", str(folder), "--steps", str(steps),
        "--snapshot-every", str(every), "--checkpoint-every", str(every), "--quiet",
    )  # fmt: skip


def timed_evaluate(run: Path, out: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    result = cli(
        "evaluate", str(run), "--env", ENV_ID, "--granularity", "10", "--episodes", "2",
        "--out", str(out), "--json",
    )  # fmt: skip
    return time.perf_counter() - started, json.loads(result.stdout)


def timed_one_by_one(run: Path, out: Path) -> float:
    """The same sweep as ten `evaluate SNAPSHOT` commands, one after another."""
    started = time.perf_counter()
    for snapshot in sorted((run / "snapshots").iterdir()):
        cli(
            "evaluate", str(snapshot), "--env", ENV_ID, "--granularity", "10", "--episodes",
            "2", "--out", str(out), "--json",
        )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=1000, help="training steps of the run")
    parser.add_argument("--run", type=Path, default=None, help="an existing run to sweep")
    parser.add_argument(
        "--baseline", action="store_true", help="also time one evaluate command per snapshot"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        run = args.run or Path(scratch) / "halfcheetah-morvs-run"
        if args.run is None:
            print(f"training the run ({args.steps} steps, {SNAPSHOTS} snapshots)…", flush=True)
            make_run(run, args.steps)
        load_before = os.getloadavg()[0]
        fresh: list[float] = []
        record: dict = {}
        for repeat in range(args.repeats):
            seconds, record = timed_evaluate(run, Path(scratch) / f"results-{repeat}")
            fresh.append(seconds)
            print(f"  run {repeat + 1}: {seconds:.1f} s", flush=True)
        resumed, _ = timed_evaluate(run, Path(scratch) / "results-0")
        baseline = [
            timed_one_by_one(run, Path(scratch) / f"baseline-{repeat}")
            for repeat in range(args.repeats if args.baseline else 0)
        ]
        load_after = os.getloadavg()[0]

    steps = record["steps"]
    episodes = sum(row["episodes"] for row in steps)
    print(f"{len(steps)} snapshots x {record['preferences']} preferences x 2 seeds = {episodes}")
    print(f"hypervolume by step: {[round(row['hypervolume']) for row in steps]}")
    median = statistics.median(fresh)
    verdict = "met" if median <= TARGET_SECONDS else "NOT met"
    print(
        f"evaluate RUN, nothing stored: median {median:.1f} s of {len(fresh)} "
        f"(min {min(fresh):.1f}, max {max(fresh):.1f}); target <= {TARGET_SECONDS:.0f} s: {verdict}"
    )
    print(f"evaluate RUN, everything stored (resumed): {resumed:.1f} s")
    if baseline:
        print(
            f"one evaluate SNAPSHOT command per snapshot: median {statistics.median(baseline):.1f}"
            f" s of {len(baseline)}"
        )
    loads = f"before {load_before:.2f}, after {load_after:.2f}"
    print(f"cores {os.cpu_count()}, load average (1 min) {loads}")


if __name__ == "__main__":
    main()
