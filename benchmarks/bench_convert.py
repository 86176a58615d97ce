"""Benchmark: convert a full-size synthetic D4MORL file to the native format, then open it.

Writes a synthetic D4MORL pickle (default 50,000 trajectories x 500 steps, 17-dim observations,
6-dim actions, 2 objectives: about 8.8 GB) into a temporary directory, converts it with
`paretoscope data convert` machinery in a child process, and opens the result for the
dashboard's summary in a fresh child process. Prints wall time and peak resident memory
(each child's own ``ru_maxrss``) of every step, then deletes everything.

    python benchmarks/bench_convert.py                   # full size (minutes, ~18 GB of disk)
    python benchmarks/bench_convert.py --trajectories 2000
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV_ID = "MO-HalfCheetah-v2"


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def step_generate(path: Path, trajectories: int, length: int) -> dict[str, float]:
    """Stream a synthetic D4MORL pickle to `path`, one trajectory in memory at a time."""
    import collections

    import numpy as np

    from paretoscope.data.d4morl import dump_d4morl_entries

    rng = np.random.default_rng(0)

    def entries():  # type: ignore[no-untyped-def]
        for _ in range(trajectories):
            states = rng.standard_normal((length + 1, 17))
            preference = rng.dirichlet([1.0, 1.0])
            entry: collections.defaultdict = collections.defaultdict(list)
            entry["observations"] = states[:-1]
            entry["actions"] = rng.uniform(-1.0, 1.0, (length, 6))
            entry["next_observations"] = states[1:]
            entry["preference"] = np.tile(preference, (length, 1))
            terminals = np.zeros(length, dtype=bool)
            terminals[-1] = True
            entry["terminals"] = terminals
            entry["raw_rewards"] = rng.normal(2.0, 1.0, (length, 2))
            yield entry

    start = time.perf_counter()
    with open(path, "wb", buffering=1 << 20) as file:
        dump_d4morl_entries(file, entries())
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": _peak_rss_mb()}


def step_convert(source: Path, destination: Path) -> dict[str, float]:
    from paretoscope.data import convert

    start = time.perf_counter()
    convert(source, destination, progress=sys.stderr.isatty())
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": _peak_rss_mb()}


def step_open(destination: Path) -> dict[str, float]:
    start = time.perf_counter()
    from paretoscope.data import dataset_summary, open_dataset

    imported = time.perf_counter()
    summary = dataset_summary(destination)
    summarised = time.perf_counter()
    trajectories = open_dataset(destination)
    last = trajectories.trajectory(trajectories.n_trajectories - 1)
    opened = time.perf_counter()
    return {
        "import_seconds": imported - start,
        "summary_seconds": summarised - imported,
        "open_and_read_one_trajectory_seconds": opened - summarised,
        "seconds": opened - start,
        "peak_rss_mb": _peak_rss_mb(),
        "trajectories": summary.n_trajectories,
        "steps": summary.n_steps,
        "non_dominated": summary.n_non_dominated,
        "last_length": len(last),
    }


def _child(step: str, *arguments: str) -> dict[str, float]:
    """Run one step in a fresh interpreter; its own peak memory is what it reports."""
    command = [sys.executable, __file__, "--step", step, *arguments]
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.PIPE, text=True)
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    result["process_seconds"] = time.perf_counter() - start  # including interpreter start
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--trajectories", type=int, default=50_000)
    parser.add_argument("--length", type=int, default=500)
    parser.add_argument("--workdir", type=Path, help="where to put the temporary files")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.step == "generate":
        print(json.dumps(step_generate(Path(args.paths[0]), args.trajectories, args.length)))
        return 0
    if args.step == "convert":
        print(json.dumps(step_convert(Path(args.paths[0]), Path(args.paths[1]))))
        return 0
    if args.step == "open":
        print(json.dumps(step_open(Path(args.paths[0]))))
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="bench-convert-", dir=args.workdir))
    source = workdir / f"{ENV_ID}_{args.trajectories}_expert_uniform.pkl"
    destination = workdir / "converted"
    shape = f"{args.trajectories} x {args.length} steps, obs 17, act 6, 2 objectives"
    try:
        print(f"synthetic D4MORL file: {shape}", flush=True)
        sizes = ["--trajectories", str(args.trajectories), "--length", str(args.length)]
        generated = _child("generate", *sizes, str(source))
        gigabytes = source.stat().st_size / 1e9
        print(f"  generated {gigabytes:.2f} GB in {generated['seconds']:.1f} s", flush=True)

        converted = _child("convert", str(source), str(destination))
        native_gb = sum(f.stat().st_size for f in destination.iterdir()) / 1e9
        print(
            f"convert: {converted['seconds']:.1f} s, peak RSS {converted['peak_rss_mb']:,.0f} MB "
            f"(native dataset {native_gb:.2f} GB)",
            flush=True,
        )
        source.unlink()  # free the disk before the next step

        opened = _child("open", str(destination))
        print(
            f"open for summary (fresh process): summary {opened['summary_seconds'] * 1000:.0f} ms "
            f"after imports of {opened['import_seconds'] * 1000:.0f} ms; whole process "
            f"{opened['process_seconds']:.2f} s; peak RSS {opened['peak_rss_mb']:,.0f} MB; "
            f"{opened['trajectories']:,} trajectories, {opened['steps']:,} steps, "
            f"{opened['non_dominated']} non-dominated",
            flush=True,
        )
        print(json.dumps({"generate": generated, "convert": converted, "open": opened}))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
