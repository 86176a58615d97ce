"""How long importing MORL-Baselines checkpoints takes, and what an imported agent costs a step.

For every checkpoint in tests/fixtures/morl-baselines (PCN trusted, horizon 5):
  sniff     `sniff_import(path)`: the torch-free scan that discovery and uploads use
  import    `import_agent(path)`: reading (restricted where needed), checking, building
  step x1   one `act` for one row (the live view, a replay)
  step x64  one `act` for 64 rows (a sweep's batch), per row
Medians of --repeats runs, with the 1-min load average before and after (the machine is shared:
compare figures taken at a similar load). The first import of a process also pays for importing
torch and MuJoCo; run once to warm up before timing (done here).

    python benchmarks/bench_import.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402

from paretoscope.agents.importers import import_agent, sniff_import  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "morl-baselines"


def _median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _step(agent, rows: int):
    """One act() for `rows` random rows, ready to time."""
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(rows, agent.spec.obs_dim))
    prefs = rng.dirichlet(np.ones(agent.spec.n_obj), size=rows)
    agent.reset(rows)
    return lambda: agent.act(obs, prefs, np.zeros_like(prefs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    golden = json.loads((FIXTURES / "golden.json").read_text())
    files = [entry["file"] for entry in golden["checkpoints"]]
    files.append("pgmorl/mo-hopper-2obj-v5/pgmorl_archive.tar")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"{'checkpoint':<66} {'sniff ms':>9} {'import ms':>10} {'step x1 ms':>11} "
        f"{'x64 ms/row':>11}"
    )
    for file in files:
        path = FIXTURES / file
        options = {"horizon": "5"} if file.startswith("pcn/") else {}

        def load(path: Path = path, options: dict = options):
            return import_agent(path, trust=bool(options), options=options)

        agent = load()  # warm-up: imports, env spec
        sniff = _median_seconds(lambda path=path: sniff_import(path), args.repeats)
        imported = _median_seconds(load, args.repeats)
        single = _median_seconds(_step(agent, 1), args.repeats * 10)
        batch = _median_seconds(_step(agent, 64), args.repeats * 10) / 64
        print(
            f"{file:<66} {sniff * 1e3:>9.2f} {imported * 1e3:>10.1f} {single * 1e3:>11.3f} "
            f"{batch * 1e3:>11.4f}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
