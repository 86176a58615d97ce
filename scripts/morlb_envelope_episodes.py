"""Record Deep Sea Treasure episodes played by MORL-Baselines' own Envelope agent and eval_mo.

Build-time script: it runs only where morl-baselines 1.3.0 (with mo-gymnasium and torch) is
installed, never in paretoscope's own environment or CI. It loads the Envelope checkpoint of
tests/fixtures/morl-baselines with the library's own ``Envelope.load``, checks that
``agent.eval`` still gives the golden actions of golden.json, then plays one episode per
(weight, seed) with ``morl_baselines.common.evaluation.eval_mo`` and writes what the environment
saw to tests/fixtures/morl-baselines/envelope_episodes.json, as independent truth for the
importer's tests.

Run from the repository root:

    python3 -m venv /work/morlb-venv
    /work/morlb-venv/bin/pip install torch==2.13.0
    /work/morlb-venv/bin/pip install morl-baselines==1.3.0 mo-gymnasium==1.3.2
    /work/morlb-venv/bin/python scripts/morlb_envelope_episodes.py
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import gymnasium
import mo_gymnasium
import numpy as np
import torch
from morl_baselines.common.evaluation import eval_mo
from morl_baselines.multi_policy.envelope.envelope import Envelope

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "morl-baselines"
CHECKPOINT = "envelope/deep-sea-treasure-v0/Envelope.tar"
ENV_ID = "deep-sea-treasure-v0"
SEEDS = (0, 1, 2)


class Recorder(gymnasium.Wrapper):
    """Keeps the reset observations and every step's action, reward vector and end flags."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.clear()

    def clear(self) -> None:
        self.reset_obs: list[list[float]] = []
        self.actions: list[int] = []
        self.rewards: list[list[float]] = []
        self.terminated: list[bool] = []
        self.truncated: list[bool] = []

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.reset_obs.append(np.asarray(obs, dtype=np.float64).tolist())
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.actions.append(int(action))
        self.rewards.append(np.asarray(reward, dtype=np.float64).tolist())
        self.terminated.append(bool(terminated))
        self.truncated.append(bool(truncated))
        return obs, reward, terminated, truncated, info


def golden_entry() -> dict[str, Any]:
    golden = json.loads((FIXTURES / "golden.json").read_text())
    return next(c for c in golden["checkpoints"] if c["file"] == CHECKPOINT)


def check_golden(agent: Envelope, entry: dict[str, Any]) -> None:
    for case in entry["cases"]:
        obs = np.asarray(case["obs"], dtype=case["obs_dtype"])
        got = int(agent.eval(obs, np.asarray(case["w"], dtype=np.float32)))
        if got != case["action"]:
            sys.exit(f"golden mismatch at {case['obs_source']}: eval gave {got}, want {case}")
    print(f"golden actions: {len(entry['cases'])}/{len(entry['cases'])} match")


def main() -> None:
    torch.set_num_threads(1)
    entry = golden_entry()
    env = mo_gymnasium.make(ENV_ID)
    agent = Envelope(env, **entry["constructor_kwargs"])
    agent.load(str(FIXTURES / CHECKPOINT), load_replay_buffer=False)
    check_golden(agent, entry)

    recorder = Recorder(env)
    episodes = []
    for k in range(11):
        w = np.array([1 - k / 10, k / 10], dtype=np.float32)
        for seed in SEEDS:
            recorder.clear()
            recorder.reset(seed=seed)
            _, _, vec_return, disc_vec_return = eval_mo(agent, recorder, w)
            episodes.append(
                {
                    "weights": w.astype(np.float64).tolist(),
                    "seed": seed,
                    "reset_observations": recorder.reset_obs,
                    "actions": recorder.actions,
                    "rewards": recorder.rewards,
                    "terminated": recorder.terminated,
                    "truncated": recorder.truncated,
                    "vec_return": np.asarray(vec_return, dtype=np.float64).tolist(),
                    "disc_vec_return": np.asarray(disc_vec_return, dtype=np.float64).tolist(),
                    "gamma": float(agent.gamma),
                }
            )

    out = {
        "generator": Path(__file__).name,
        "versions": {
            "morl-baselines": version("morl-baselines"),
            "mo-gymnasium": version("mo-gymnasium"),
            "gymnasium": gymnasium.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "env_id": ENV_ID,
        "time_limit": env.spec.max_episode_steps if env.spec else None,
        "checkpoint": CHECKPOINT,
        "constructor_kwargs": entry["constructor_kwargs"],
        "how": (
            "Envelope(env, **constructor_kwargs).load(checkpoint, load_replay_buffer=False); per "
            "(w, seed): env.reset(seed=seed), then morl_baselines.common.evaluation.eval_mo(agent, "
            "env, w), which resets again without a seed; reset_observations lists both resets"
        ),
        "episodes": episodes,
    }
    path = FIXTURES / "envelope_episodes.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(episodes)} episodes to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
