"""Training-run folders for tests, each written the way its trainer writes it.

- `policy_set_run`: paretoscope's layout, ``snapshots/step=N/`` checkpoints saved by
  `paretoscope.agents.save_policy_set` (linear policies whose gain grows with the step);
- `envelope_run`: MORL-Baselines saves (``Envelope step=N.tar``: the fixture's real save with its
  Q-network perturbed per step, rewritten with ``torch.save`` of the same dict);
- `peda_run`: PEDA's ``ckpt/step=N.ckpt`` (the fixture's real checkpoint, perturbed per step)
  and ``logs/step=N_rollout.pkl`` (a pickled dict of numpy arrays, as PEDA's script dumps it).
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paretoscope.envs import get_spec
from paretoscope.runs.layout import snapshot_dir

FIXTURES = Path(__file__).parent / "fixtures"
ENVELOPE_SAVE = FIXTURES / "morl-baselines" / "envelope" / "deep-sea-treasure-v0" / "Envelope.tar"
PEDA_CHECKPOINTS = FIXTURES / "peda" / "ckpts"


def policy_set_run(
    root: Path,
    env_id: str = "MO-Swimmer-v2",
    steps: Sequence[int] = (10, 20, 30),
    members: int = 3,
) -> Path:
    """A paretoscope run of linear policy sets whose gain grows with the step."""
    from paretoscope.agents.policy_set import PolicySetAgent, save_policy_set

    spec = get_spec(env_id)
    rng = np.random.default_rng(0)
    base = rng.normal(0.0, 0.5, size=(members, spec.act_dim, spec.obs_dim))
    first = np.linspace(1.0, 0.0, members)
    preferences = np.stack([first, 1.0 - first], axis=1)
    for step in steps:
        agent = PolicySetAgent(
            env_id,
            preferences,
            base * (step / max(steps)),
            np.zeros((members, spec.obs_dim)),
            np.ones((members, spec.obs_dim)),
            training={"method": "test", "iterations": [int(step)] * members},
        )
        save_policy_set(agent, snapshot_dir(root, step))
    return root


def _perturbed(state: dict, seed: int, size: float) -> dict:
    import torch

    generator = torch.Generator().manual_seed(seed)
    out = {}
    for key, value in state.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            noise = torch.randn(value.shape, generator=generator, dtype=value.dtype)
            out[key] = value + size * noise
        else:
            out[key] = value
    return out


def envelope_run(parent: Path, steps: Sequence[int] = (100, 200, 300)) -> Path:
    """A MORL-Baselines Envelope run on deep-sea-treasure-v0 (the env named by its folder)."""
    import torch

    root = parent / "deep-sea-treasure-v0"
    root.mkdir(parents=True, exist_ok=True)
    saved = torch.load(ENVELOPE_SAVE, weights_only=True, map_location="cpu")
    for index, step in enumerate(steps):
        content = copy.copy(saved)
        content["q_net_state_dict"] = _perturbed(saved["q_net_state_dict"], index, 0.3 * index)
        torch.save(content, root / f"Envelope step={step}.tar")
    return root


def peda_run(
    root: Path,
    env_id: str = "MO-HalfCheetah-v2",
    peda_type: str = "rvs",
    steps: Sequence[int] = (1000, 2000, 3000),
    logs: bool = True,
) -> Path:
    """A PEDA run folder (its ckpt/ and logs/), checkpoints perturbed per step."""
    import torch

    saved = torch.load(
        PEDA_CHECKPOINTS / env_id / peda_type / "step=1.ckpt", weights_only=True, map_location="cpu"
    )
    (root / "ckpt").mkdir(parents=True, exist_ok=True)
    (root / "logs").mkdir(parents=True, exist_ok=True)
    n_obj = get_spec(env_id).n_obj
    for index, step in enumerate(steps):
        content = {
            "model": _perturbed(saved["model"], index, 0.05 * index),
            "optimizer": saved["optimizer"],
        }
        torch.save(content, root / "ckpt" / f"step={step}.ckpt")
        if logs:
            write_rollout_log(root / "logs" / f"step={step}_rollout.pkl", n_obj, index)
    return root


def rollout_log(n_obj: int, index: int) -> dict:
    """PEDA's rollout dict for granularity 1 (the corners), returns growing with `index`."""
    preferences = np.eye(n_obj)
    returns = 100.0 * (index + 1) * (np.eye(n_obj) + 0.1)
    return {
        "n_obj": n_obj,
        "target_prefs": preferences,
        "target_returns": returns * preferences,
        "rollout_unweighted_raw_r": returns / 1000.0,
        "rollout_weighted_raw_r": returns * preferences / 1000.0,
        "rollout_original_raw_r": returns,
    }


def write_rollout_log(path: Path, n_obj: int, index: int) -> None:
    path.write_bytes(pickle.dumps(rollout_log(n_obj, index)))
