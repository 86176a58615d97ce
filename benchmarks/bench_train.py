"""Training steps per second of the offline trainers (MORvS, BC, MODT) at PEDA's default sizes.

    python benchmarks/bench_train.py [--env MO-HalfCheetah-v2] [--steps N] [--threads 1 2]
                                     [--device cpu] [--kinds morvs bc modt]

For each kind: a full `train_offline` run on a synthetic in-memory dataset (200 trajectories
of 500 steps with the env's dims; random numbers: the speed does not depend on the values),
batch 64, default architecture (MLPs 3 x 512; MODT hidden 512, 3 layers, context 20). The rate
is counted between the 10th and the last step, so set-up and the final save are left out.
Also prints the time to assemble one batch. The machine is shared and noisy: the load average
is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from paretoscope.agents.conditioned import create_agent
from paretoscope.agents.target_model import fit_linear_target_model
from paretoscope.data import DatasetInfo, Trajectories
from paretoscope.envs import get_spec
from paretoscope.settings import OfflineTrainingSettings
from paretoscope.train.batches import BATCH_BUILDERS, TrainingData, sample_steps
from paretoscope.train.offline import OFFLINE_KINDS, train_offline

WARMUP_STEPS = 10
# Steps per measurement: enough to time a few seconds of each kind on one CPU core.
DEFAULT_STEPS = {"morvs": 400, "bc": 300, "modt": 25}


def synthetic_dataset(env_id: str, trajectories: int = 200, length: int = 500) -> Trajectories:
    """Random trajectories with the env's dims and PEDA-like reward magnitudes."""
    spec = get_spec(env_id)
    rng = np.random.default_rng(0)
    steps = trajectories * length
    bound = np.asarray(spec.action_high)
    preferences = rng.dirichlet(np.ones(spec.n_obj), size=trajectories)
    return Trajectories(
        DatasetInfo.for_env(env_id, source="synthetic benchmark data"),
        observations=rng.normal(size=(steps, spec.obs_dim)),
        actions=rng.uniform(-bound, bound, size=(steps, spec.act_dim)),
        raw_rewards=rng.uniform(0.0, 5.0, size=(steps, spec.n_obj)),
        terminals=np.zeros(steps, dtype=bool),
        preferences=preferences,
        offsets=np.arange(0, steps + 1, length),
        final_observations=rng.normal(size=(trajectories, spec.obs_dim)),
    )


def training_rate(kind: str, data: Trajectories, steps: int, device: str) -> tuple[float, int]:
    """(optimisation steps per second after the first few, parameter count)."""
    stamps: dict[int, float] = {}

    def stamp(step: int, loss: float) -> None:
        stamps[step] = time.perf_counter()

    with tempfile.TemporaryDirectory() as folder:
        agent = train_offline(
            kind,
            data,
            Path(folder) / kind,
            OfflineTrainingSettings(steps=steps, checkpoint_every=10 * steps),
            device=device,
            progress=False,
            on_step=stamp,
        )
    rate = (steps - WARMUP_STEPS) / (stamps[steps] - stamps[WARMUP_STEPS])
    return rate, agent.parameter_count


def batch_milliseconds(kind: str, data: Trajectories, repeats: int = 50) -> float:
    """Median milliseconds to sample and assemble one batch of 64 (no network involved)."""
    target_model = None
    if kind != "bc":
        target_model = fit_linear_target_model(data.preferences, data.returns)
    agent = create_agent(kind, data.info.env_id, target_model=target_model, seed=0)
    training_data = TrainingData.from_trajectories(data)
    build = BATCH_BUILDERS[kind]
    rng = np.random.default_rng(0)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        build(agent, training_data, sample_steps(training_data, rng, 64))
        times.append(time.perf_counter() - started)
    return float(np.median(times) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="MO-HalfCheetah-v2")
    parser.add_argument(
        "--steps", type=int, default=None, help="steps per measurement (default: per kind)"
    )
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--kinds", nargs="+", default=list(OFFLINE_KINDS))
    args = parser.parse_args()
    data = synthetic_dataset(args.env)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{args.env}: {data.n_trajectories} x 500 synthetic steps, batch 64, default sizes, "
        f"device {args.device}, {os.cpu_count()} cores, "
        f"load average {load:.2f}, torch {torch.__version__}"
    )
    print(f"{'kind':<6} {'parameters':>11} {'batch ms':>9}  " + "  ".join(
        f"{f'steps/s ({threads} thr)':>17}" for threads in args.threads
    ))  # fmt: skip
    previous = torch.get_num_threads()
    try:
        for kind in args.kinds:
            rates = []
            parameters = 0
            for threads in args.threads:
                torch.set_num_threads(threads)
                steps = args.steps or DEFAULT_STEPS[kind]
                rate, parameters = training_rate(kind, data, steps, args.device)
                rates.append(rate)
            torch.set_num_threads(1)
            milliseconds = batch_milliseconds(kind, data)
            print(
                f"{kind:<6} {parameters:>11,} {milliseconds:>9.2f}  "
                + "  ".join(f"{rate:>17.1f}" for rate in rates)
            )
    finally:
        torch.set_num_threads(previous)


if __name__ == "__main__":
    main()
