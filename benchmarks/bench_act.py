"""Time one agent step (`act`) on one torch thread: the bundled agents and the default-size
MORvS (3 x 512) and PEDA decision transformer (512 wide, 3 layers, context 20), alone (1 row,
a dashboard replay or live stream) and in a sweep batch (64 rows). Prints medians, with the
1-min load average before and after (a shared machine: compare figures taken at a similar
load).

    python benchmarks/bench_act.py [--steps 200] [--assets assets]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from paretoscope.agents import load  # noqa: E402
from paretoscope.agents.architecture import MORvSArchitecture, TransformerArchitecture  # noqa: E402
from paretoscope.agents.base import Agent  # noqa: E402
from paretoscope.agents.conditioned import create_agent  # noqa: E402
from paretoscope.agents.target_model import published_target_model  # noqa: E402

ENV_ID = "MO-HalfCheetah-v2"


def step_time(agent: Agent, rows: int, steps: int) -> float:
    """Median seconds of one `act` over `rows` rows, after a warm-up."""
    rng = np.random.default_rng(0)
    preferences = rng.dirichlet(np.ones(agent.spec.n_obj), rows)
    agent.reset(rows)
    targets = agent.initial_target(preferences)
    observations = rng.normal(size=(rows, agent.spec.obs_dim))
    times = []
    for step in range(steps + 10):
        started = time.perf_counter()
        agent.act(observations, preferences, targets)
        if step >= 10:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def default_agents() -> dict[str, Agent]:
    target = published_target_model(ENV_ID)
    morvs = MORvSArchitecture(hidden_sizes=(512, 512, 512))
    dt = TransformerArchitecture(
        hidden_size=512, n_layer=3, n_head=1, inner_size=2048, context_length=20
    )
    return {
        "default MORvS 3 x 512": create_agent(
            "morvs", ENV_ID, architecture=morvs, target_model=target, seed=0
        ),
        "default PEDA DT": create_agent("modt", ENV_ID, architecture=dt, target_model=target),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"load before: {os.getloadavg()[0]:.2f}")
    agents = {
        f"bundled {folder.name}": load(folder)
        for folder in sorted((args.assets / "agents").iterdir())
        if (folder / "config.json").is_file() and "behaviour" not in folder.name
    }
    agents.update(default_agents())
    for name, agent in agents.items():
        times = []
        for rows in (1, 64):
            # The big transformer takes over a second a step at 64 rows: fewer steps there.
            steps = args.steps if rows == 1 or "PEDA" not in name else max(3, args.steps // 40)
            times.append(step_time(agent, rows, steps) * 1e3)
        print(f"  {name:<34} 1 row {times[0]:8.2f} ms   64 rows {times[1]:9.2f} ms")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
