"""Train a tiny MORL-Baselines PGMORL run and save its Pareto archive as a test fixture.

Build-time script: it runs only where morl-baselines 1.3.0 (with mo-gymnasium, MuJoCo and torch)
is installed, never in paretoscope's own environment or CI. PGMORL has no ``save()``, so the
archive is written with the snippet paretoscope documents for users, reloaded with
``torch.load(weights_only=True)``, and golden cases are computed with each archive member's own
in-memory ``networks.actor_mean``. Output goes to
tests/fixtures/morl-baselines/pgmorl/<env-id>/{pgmorl_archive.tar,golden.json}.

Run from the repository root (about a minute on 2 cores):

    python3 -m venv /work/morlb-venv
    /work/morlb-venv/bin/pip install torch==2.13.0
    /work/morlb-venv/bin/pip install morl-baselines==1.3.0 mo-gymnasium==1.3.2 mujoco
    /work/morlb-venv/bin/python scripts/make_pgmorl_fixture.py
"""

from __future__ import annotations

import json
import platform
from importlib.metadata import version
from pathlib import Path
from typing import Any

import mo_gymnasium as mo_gym
import numpy as np
import torch
from morl_baselines.multi_policy.pgmorl.pgmorl import PGMORL

ENV_ID = "mo-hopper-2obj-v5"
OUT = Path(__file__).resolve().parents[1] / "tests/fixtures/morl-baselines/pgmorl" / ENV_ID
ARCHIVE = OUT / "pgmorl_archive.tar"
CONSTRUCTOR: dict[str, Any] = dict(
    env_id=ENV_ID,
    num_envs=2,
    pop_size=4,  # PGMORL's predictor needs >= 4 warmup evaluations
    warmup_iterations=1,
    evolutionary_iterations=1,
    num_weight_candidates=3,
    steps_per_iteration=256,
    num_minibatches=4,
    update_epochs=2,
    net_arch=[32, 16],
    log=False,
    seed=4,  # seeds 0-3 end with a one-member archive, 5 with two
    device="cpu",
)
ORIGIN = [0.0, 0.0]
REF_POINT = [0.0, 0.0]
# train() runs total // (steps_per_iteration * num_envs * pop_size) = 2 iterations
TOTAL_TIMESTEPS = 2 * 256 * 2 * 4


def train() -> PGMORL:
    torch.manual_seed(CONSTRUCTOR["seed"])  # PGMORL seeds its envs and numpy, not torch
    pgmorl = PGMORL(origin=np.array(ORIGIN), **CONSTRUCTOR)
    eval_env = mo_gym.make(ENV_ID)
    eval_env.reset(seed=CONSTRUCTOR["seed"])  # eval_mo resets it unseeded
    pgmorl.train(total_timesteps=TOTAL_TIMESTEPS, eval_env=eval_env, ref_point=np.array(REF_POINT))
    return pgmorl


def save_archive(pgmorl: PGMORL) -> None:
    # The snippet documented for users, verbatim. ``np_weights`` of a live PGMORL agent can be stale
    # (``MOPPO.change_weights`` sets only ``weights``), but the archive holds deep copies and
    # ``MOPPO.__deepcopy__`` rebuilds ``np_weights`` from ``weights``; main() checks they agree.
    torch.save(
        {
            "pgmorl_archive": [
                {
                    "weights": torch.as_tensor(agent.np_weights, dtype=torch.float32),
                    "evaluation": torch.as_tensor(evaluation, dtype=torch.float32),
                    "actor_mean": agent.networks.actor_mean.state_dict(),
                    "actor_logstd": agent.networks.actor_logstd.detach().clone(),
                }
                for agent, evaluation in zip(pgmorl.archive.individuals, pgmorl.archive.evaluations)  # noqa: B905
            ]
        },
        ARCHIVE,
    )


def observations() -> list[tuple[str, np.ndarray]]:
    env = mo_gym.make(ENV_ID)
    shape = env.observation_space.shape
    obs = [(f"env.reset(seed={k})", env.reset(seed=k)[0]) for k in (0, 1)]
    obs += [
        (f"default_rng({k}).standard_normal", np.random.default_rng(k).standard_normal(shape))
        for k in (0, 1)
    ]
    return [(source, np.asarray(o, dtype=np.float64)) for source, o in obs]


def main() -> None:
    torch.set_num_threads(1)
    OUT.mkdir(parents=True, exist_ok=True)
    pgmorl = train()
    save_archive(pgmorl)
    loaded = torch.load(ARCHIVE, weights_only=True)["pgmorl_archive"]
    members = pgmorl.archive.individuals
    assert len(loaded) == len(members) > 0
    for entry, agent in zip(loaded, members, strict=True):
        for key, value in agent.networks.actor_mean.state_dict().items():
            assert torch.equal(entry["actor_mean"][key], value), key
        assert np.allclose(agent.np_weights, agent.weights.numpy())

    space = mo_gym.make(ENV_ID).action_space
    cases = []
    for i, (agent, evaluation) in enumerate(zip(members, pgmorl.archive.evaluations, strict=True)):
        for source, obs in observations():
            with torch.no_grad():
                mean = agent.networks.actor_mean(torch.as_tensor(obs).float().unsqueeze(0))[0]
            mean_np = mean.numpy().astype(np.float64)
            cases.append(
                {
                    "member": i,
                    "obs_source": source,
                    "obs": obs.tolist(),
                    "weights": np.asarray(agent.np_weights, dtype=np.float64).tolist(),
                    "evaluation": np.asarray(evaluation, dtype=np.float64).tolist(),
                    "mean_action": mean_np.tolist(),
                    "clipped_mean_action": np.clip(mean_np, space.low, space.high).tolist(),
                }
            )

    golden = {
        "env_id": ENV_ID,
        "file": ARCHIVE.name,
        "versions": {
            **{p: version(p) for p in ("morl-baselines", "mo-gymnasium", "gymnasium", "mujoco")},
            "torch": torch.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "constructor": {**CONSTRUCTOR, "origin": ORIGIN},
        "train": {"total_timesteps": TOTAL_TIMESTEPS, "eval_env": ENV_ID, "ref_point": REF_POINT},
        "archive_size": len(members),
        "actor_mean_keys": {k: list(v.shape) for k, v in loaded[0]["actor_mean"].items()},
        "actor_mean_modules": [type(m).__name__ for m in members[0].networks.actor_mean],
        "action_low": space.low.tolist(),
        "action_high": space.high.tolist(),
        "cases": cases,
    }
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1) + "\n")
    print(f"archive of {len(members)} members -> {ARCHIVE} ({ARCHIVE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
