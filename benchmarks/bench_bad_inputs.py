"""What hostile inputs cost: every case of the CLI's bad-input corpus (tests/bad_inputs/cli_*.py)
run through `python -m paretoscope` as the test runs it (a child with capped address space),
printing per case its exit status, peak memory (the child's maximum resident set, from the OS)
and seconds, then the largest peak and whether every case met issue 50's bar (status 2, one
message, no traceback, peak under 1 GB, nothing written outside --out).

    python benchmarks/bench_bad_inputs.py [-k SUBSTRING]

A CLI that imports torch and mujoco holds ~0.3 GB before it reads anything: the peaks below
that are the interpreter's, not the file's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bad_inputs.cli_harness import PEAK_MEMORY_LIMIT, check_refusal, run_case  # noqa: E402
from tests.test_cli_bad_inputs import CASES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only the cases whose name holds this")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'case':48} {'status':>6} {'peak MiB':>9} {'seconds':>8}  bar")
    peaks, failed = [], []
    with tempfile.TemporaryDirectory() as folder:
        for index, case in enumerate(c for c in CASES if args.k in c.name):
            outcome = run_case(case, Path(folder, str(index)))
            try:
                check_refusal(case, outcome)
                verdict = "met"
            except AssertionError:
                verdict = "MISSED"
                failed.append(case.name)
            peaks.append(outcome.peak_memory)
            print(
                f"{case.name[:48]:48} {outcome.status:>6} "
                f"{outcome.peak_memory / 2**20:>9.0f} {outcome.seconds:>8.2f}  {verdict}"
            )
    if not peaks:
        print("no case matched")
        return
    print(
        f"{len(peaks)} cases: largest peak {max(peaks) / 2**20:.0f} MiB "
        f"(limit {PEAK_MEMORY_LIMIT / 2**20:.0f} MiB); bar met by {len(peaks) - len(failed)}"
    )
    if failed:
        print("missed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
